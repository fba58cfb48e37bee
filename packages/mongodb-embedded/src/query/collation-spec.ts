// A command's collation document, validated the way mongod 7.0's ICU collator factory does:
// the locale first, then each option's type and value, then unknown fields, then the
// combinations ICU would ignore. Options Intl.Collator cannot honour are refused afterwards,
// so a valid request we cannot serve gets a clear error instead of a silently wrong answer.
import type { Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import { bsonTypeOf, isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { queryError } from "./query-error.js";
import { resolveLocale } from "./collation-locale.js";

export interface CollationSpec {
  /** The mongod locale ID ("en_US", "de@collation=phonebook"), never "simple". */
  readonly locale: string;
  readonly strength: number;
  readonly caseLevel: boolean;
  readonly caseFirst: "upper" | "lower" | "off";
  readonly numericOrdering: boolean;
  readonly alternate: "non-ignorable" | "shifted";
  readonly maxVariable: "punct" | "space";
  readonly normalization: boolean;
  readonly backwards: boolean;
}

/** The ICU version mongod 7.0 reports in a collation's `version` field. */
export const ICU_VERSION = "57.1";

const CHOICES = {
  caseFirst: ["upper", "lower", "off"],
  alternate: ["non-ignorable", "shifted"],
  maxVariable: ["punct", "space"],
} as const;

/**
 * Parses `raw`, the value of a command's (or statement's) `collation` field named `field`;
 * undefined stands for the simple binary collation (absent, or `{ locale: "simple" }`).
 */
export function parseCollation(raw: unknown, field = "collation"): CollationSpec | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainDocument(raw)) {
    throw queryError(
      "TypeMismatch",
      `BSON field '${field}' is the wrong type '${bsonTypeOf(raw)}', expected type 'object'`,
    );
  }
  const locale = requiredLocale(raw);
  if (locale === "simple") {
    if (Object.keys(raw).length > 1) {
      throw queryError(
        "FailedToParse",
        `If locale=simple, no other fields should be present in: ${showSpec(raw)}`,
      );
    }
    return undefined;
  }
  resolveLocale(locale, showSpec(raw));
  const spec = parseOptions(raw, locale);
  assertMeaningfulCombination(spec);
  assertHonourable(spec);
  return spec;
}

function requiredLocale(raw: Document): string {
  const locale = raw.locale;
  if (locale === undefined) throw queryError("NoSuchKey", 'Missing expected field "locale"');
  if (typeof locale !== "string") throw wrongType("locale", "string", locale);
  if (locale.includes("\0")) {
    throw queryError("BadValue", `Field 'locale' cannot contain null byte. Collation spec: ${showSpec(raw)}`);
  }
  if (locale === "") {
    throw queryError("BadValue", `Field 'locale' cannot be the empty string in: ${showSpec(raw)}`);
  }
  return locale;
}

function parseOptions(raw: Document, locale: string): CollationSpec {
  const known = new Set(["locale"]);
  const take = <T>(name: string, read: (value: unknown) => T, fallback: T): T => {
    if (raw[name] === undefined) return fallback;
    known.add(name);
    return read(raw[name]);
  };
  const spec: CollationSpec = {
    locale,
    caseLevel: take("caseLevel", (v) => booleanOption("caseLevel", v), false),
    caseFirst: take("caseFirst", (v) => choiceOption("caseFirst", v), "off" as const),
    strength: take("strength", strengthOption, 3),
    numericOrdering: take("numericOrdering", (v) => booleanOption("numericOrdering", v), false),
    alternate: take("alternate", (v) => choiceOption("alternate", v), "non-ignorable" as const),
    maxVariable: take("maxVariable", (v) => choiceOption("maxVariable", v), "punct" as const),
    normalization: take("normalization", (v) => booleanOption("normalization", v), false),
    backwards: take("backwards", (v) => booleanOption("backwards", v), false),
  };
  take("version", (v) => versionOption(v, raw), ICU_VERSION);
  if (Object.keys(raw).some((name) => !known.has(name))) {
    throw queryError(
      "FailedToParse",
      `Collation spec contains unknown field. Collation spec: ${showSpec(raw)}`,
    );
  }
  return spec;
}

function booleanOption(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw wrongType(name, "bool", value);
  return value;
}

function choiceOption<K extends keyof typeof CHOICES>(name: K, value: unknown): (typeof CHOICES)[K][number] {
  if (typeof value !== "string") throw wrongType(name, "string", value);
  const choices: readonly string[] = CHOICES[name];
  if (!choices.includes(value)) {
    const listed = choices.map((c) => `'${c}'`);
    const options =
      listed.length > 2 ? `${listed.slice(0, -1).join(", ")}, or ${listed.at(-1)}` : listed.join(" or ");
    throw queryError("FailedToParse", `Field '${name}' must be ${options}. Got: ${value}`);
  }
  return value as (typeof CHOICES)[K][number];
}

function strengthOption(value: unknown): number {
  if (!isNumeric(value)) {
    throw queryError(
      "TypeMismatch",
      `Expected field "strength" to have numeric type, but found ${bsonTypeOf(value)}`,
    );
  }
  const strength = toNumber(value);
  if (!Number.isInteger(strength)) {
    throw queryError(
      "BadValue",
      `Expected field "strength" to have a value exactly representable as a 64-bit integer, but found strength: ${strength}`,
    );
  }
  if (strength < 1 || strength > 5) {
    throw queryError("FailedToParse", `Field 'strength' must be an integer 1 through 5. Got: ${strength}`);
  }
  return strength;
}

function versionOption(value: unknown, raw: Document): string {
  if (typeof value !== "string") throw wrongType("version", "string", value);
  if (value !== ICU_VERSION) {
    throw new ServerError(
      161,
      "IncompatibleCollationVersion",
      `Requested collation version ${value} but the only available collator version was ${ICU_VERSION}. Requested collation spec: ${showSpec(raw)}`,
    );
  }
  return value;
}

/** mongod refuses options ICU would silently ignore at the requested strength. */
function assertMeaningfulCombination(spec: CollationSpec): void {
  if (spec.backwards && spec.strength === 1) {
    throw queryError("BadValue", `'backwards' is invalid with 'strength' of 1 in: ${showSpec(spec)}`);
  }
  if (spec.caseFirst !== "off" && !spec.caseLevel && spec.strength <= 2) {
    throw queryError(
      "BadValue",
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${showSpec(spec)}`,
    );
  }
}

/** Valid options that Intl.Collator has no equivalent for. */
function assertHonourable(spec: CollationSpec): void {
  const unsupported: string[] = [];
  if (spec.alternate === "shifted") unsupported.push('alternate: "shifted"');
  if (spec.backwards) unsupported.push("backwards: true");
  if (spec.normalization) unsupported.push("normalization: true");
  if (unsupported.length === 0) return;
  throw new ServerError(
    ErrorCode.NotImplemented,
    "NotImplemented",
    `collation option ${unsupported.join(", ")} is not supported by the embedded server in: ${showSpec(spec)}`,
  );
}

function wrongType(name: string, expected: string, value: unknown): ServerError {
  return queryError(
    "TypeMismatch",
    `"${name}" had the wrong type. Expected ${expected}, found ${bsonTypeOf(value)}`,
  );
}

/** A collation document the way mongod prints BSON in messages: `{ locale: "en_US", strength: 2 }`. */
export function showSpec(spec: object): string {
  const fields = Object.entries(spec).map(([name, value]) => {
    const shown = isNumeric(value) ? String(toNumber(value)) : JSON.stringify(value);
    return `${name}: ${shown}`;
  });
  return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
}
