// "Evaluating Matches" of the unified test format: expected values are query-like. Root-level
// documents may carry extra fields, nested ones may not; arrays match element by element with equal
// lengths; numbers compare across int32/int64/double; `$$` operators make assertions of their own.
import { EJSON } from "bson";
import { UnsupportedFeature } from "./outcomes.js";
import {
  bsonTypeNames,
  bsonTypeTag,
  canonicalText,
  describeValue,
  isPlainDocument,
  numberAtMost,
  numbersEqual,
  numericValue,
} from "./bson-values.js";

/** What `$$matchesEntity` and `$$sessionLsid` look up in the current test's entity map. */
export interface MatchEntities {
  entityValue(name: string): unknown;
  sessionLsid(name: string): unknown;
}

const noEntities: MatchEntities = {
  entityValue: (name) => {
    throw new Error(`no entity map to resolve ${name}`);
  },
  sessionLsid: (name) => {
    throw new Error(`no entity map to resolve session ${name}`);
  },
};

export interface MatchOptions {
  /** Root-level documents may hold fields the expectation does not mention. */
  root: boolean;
  entities?: MatchEntities;
  /** Prefix of the path reported in a difference, e.g. "result" or "events[2].command". */
  path?: string;
}

/** The first difference between expected and actual, with its path, or undefined when they match. */
export function findDifference(
  expected: unknown,
  actual: unknown,
  options: MatchOptions,
): string | undefined {
  return new Matcher(options.entities ?? noEntities).compare(
    expected,
    actual,
    options.path ?? "$",
    options.root,
  );
}

/** The `$$` operator an expected value is, if its first and only key starts with "$$". */
export function specialOperator(value: unknown): { name: string; argument: unknown } | undefined {
  if (!isPlainDocument(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || !keys[0]!.startsWith("$$")) return undefined;
  return { name: keys[0]!, argument: value[keys[0]!] };
}

class Matcher {
  constructor(private readonly entities: MatchEntities) {}

  compare(expected: unknown, actualValue: unknown, path: string, root: boolean): string | undefined {
    // The driver builds some command fields (find's sort) as Maps to keep their key order.
    const actual = actualValue instanceof Map ? Object.fromEntries(actualValue) : actualValue;
    const operator = specialOperator(expected);
    if (operator) return this.applyOperator(operator.name, operator.argument, actual, path, root);
    if (isPlainDocument(expected)) return this.compareDocument(expected, actual, path, root);
    if (Array.isArray(expected)) return this.compareArray(expected, actual, path);
    return compareScalar(expected, actual, path);
  }

  private compareDocument(
    expected: Record<string, unknown>,
    actual: unknown,
    path: string,
    root: boolean,
  ): string | undefined {
    if (!isPlainDocument(actual)) return `at ${path}: expected a document, got ${describeValue(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const difference = this.compareField(key, value, actual, `${path}.${key}`);
      if (difference) return difference;
    }
    if (root) return undefined;
    const extra = Object.keys(actual).find((key) => actual[key] !== undefined && !(key in expected));
    if (extra === undefined) return undefined;
    return `at ${path}.${extra}: unexpected field in a nested document (${describeValue(actual[extra])})`;
  }

  private compareField(
    key: string,
    expected: unknown,
    actualDocument: Record<string, unknown>,
    path: string,
  ): string | undefined {
    const actual = actualDocument[key];
    const operator = specialOperator(expected);
    if (operator?.name === "$$exists") {
      const exists = actual !== undefined;
      if (exists === Boolean(operator.argument)) return undefined;
      return exists
        ? `at ${path}: expected no field, got ${describeValue(actual)}`
        : `at ${path}: field missing`;
    }
    if (operator?.name === "$$unsetOrMatches" && actual === undefined) return undefined;
    if (actual === undefined) return `at ${path}: field missing, expected ${describeValue(expected)}`;
    return this.compare(expected, actual, path, false);
  }

  private compareArray(expected: unknown[], actual: unknown, path: string): string | undefined {
    if (!Array.isArray(actual)) return `at ${path}: expected an array, got ${describeValue(actual)}`;
    if (actual.length !== expected.length) {
      return `at ${path}: expected ${expected.length} elements, got ${actual.length}: ${describeValue(actual)}`;
    }
    for (let index = 0; index < expected.length; index++) {
      const difference = this.compare(expected[index], actual[index], `${path}[${index}]`, false);
      if (difference) return difference;
    }
    return undefined;
  }

  private applyOperator(
    name: string,
    argument: unknown,
    actual: unknown,
    path: string,
    root: boolean,
  ): string | undefined {
    switch (name) {
      case "$$exists":
        return (actual !== undefined) === Boolean(argument)
          ? undefined
          : `at ${path}: $$exists ${String(argument)}`;
      case "$$unsetOrMatches":
        return actual === undefined ? undefined : this.compare(argument, actual, path, root);
      case "$$type":
        return checkType(argument, actual, path);
      case "$$matchesEntity":
        return this.compare(this.entities.entityValue(String(argument)), actual, path, root);
      case "$$sessionLsid":
        return this.compare(this.entities.sessionLsid(String(argument)), actual, path, false);
      case "$$matchesHexBytes":
        return checkHexBytes(String(argument), actual, path);
      case "$$lte":
        return checkAtMost(argument, actual, path);
      case "$$matchAsDocument":
        return this.matchAsDocument(argument, actual, path);
      case "$$matchAsRoot":
        return this.compare(argument, actual, path, true);
      default:
        throw new UnsupportedFeature(`matching operator ${name}`);
    }
  }

  private matchAsDocument(expected: unknown, actual: unknown, path: string): string | undefined {
    if (typeof actual !== "string")
      return `at ${path}: expected an Extended JSON string, got ${describeValue(actual)}`;
    let parsed: unknown;
    try {
      parsed = EJSON.parse(actual, { relaxed: false });
    } catch (error) {
      return `at ${path}: not Extended JSON (${String(error)})`;
    }
    return this.compare(expected, parsed, path, false);
  }
}

function checkType(argument: unknown, actual: unknown, path: string): string | undefined {
  const wanted = (Array.isArray(argument) ? argument : [argument]).map(String);
  const names = bsonTypeNames(actual);
  if (wanted.some((name) => names.includes(name))) return undefined;
  return `at ${path}: expected type ${wanted.join(" or ")}, got ${describeValue(actual)} (${names.join("/") || "missing"})`;
}

function checkHexBytes(hex: string, actual: unknown, path: string): string | undefined {
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error(`$$matchesHexBytes: malformed hex string ${hex}`);
  const actualHex =
    actual instanceof Uint8Array
      ? Buffer.from(actual).toString("hex")
      : typeof actual === "string"
        ? actual
        : undefined;
  if (actualHex !== undefined && actualHex.toLowerCase() === hex.toLowerCase()) return undefined;
  return `at ${path}: expected bytes ${hex}, got ${describeValue(actual)}`;
}

function checkAtMost(limit: unknown, actual: unknown, path: string): string | undefined {
  const limitNumber = numericValue(limit);
  const actualNumber = numericValue(actual);
  if (limitNumber === undefined) throw new Error(`$$lte needs a number, got ${describeValue(limit)}`);
  if (actualNumber !== undefined && numberAtMost(actualNumber, limitNumber)) return undefined;
  return `at ${path}: expected at most ${describeValue(limit)}, got ${describeValue(actual)}`;
}

function compareScalar(expected: unknown, actual: unknown, path: string): string | undefined {
  return scalarsEqual(expected, actual)
    ? undefined
    : `at ${path}: expected ${describeValue(expected)}, got ${describeValue(actual)}`;
}

/** Equality of non-container values: flexible numerics, Decimal128 by value, other BSON types exactly. */
export function scalarsEqual(expected: unknown, actual: unknown): boolean {
  const expectedNumber = numericValue(expected);
  if (expectedNumber !== undefined) {
    const actualNumber = numericValue(actual);
    return actualNumber !== undefined && numbersEqual(expectedNumber, actualNumber);
  }
  if (expected === null || typeof expected !== "object") return expected === actual;
  if (expected instanceof Date) return actual instanceof Date && actual.getTime() === expected.getTime();
  if (actual === null || typeof actual !== "object") return false;
  const expectedTag = bsonTypeTag(expected);
  if (expectedTag === "Decimal128")
    return bsonTypeTag(actual) === "Decimal128" && String(actual) === String(expected);
  return canonicalText(expected) === canonicalText(actual);
}
