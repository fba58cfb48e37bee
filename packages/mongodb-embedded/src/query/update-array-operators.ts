// The array update operators: $push (with $each, $position, $sort, $slice), $addToSet (with
// $each), $pop, $pull and $pullAll. A missing field becomes an array for $push/$addToSet and
// is left alone by the removing operators; any other non-array value is an error.
import type { Document } from "bson";
import { valuesEqual, type StringComparator } from "./bson-order.js";
import { bsonTypeOf, isNumeric, isPlainDocument, toNumber } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { compileFilter } from "./filter.js";
import { compileOperatorSet } from "./filter-operators.js";
import { queryError } from "./query-error.js";
import { sortDocuments } from "./sort.js";
import type { FieldOperator, LoggedAs } from "./update-field-operators.js";
import { readTarget, writeTarget, type Target } from "./update-path.js";

function existingArray(target: Target, operator: string): unknown[] | undefined {
  const current = readTarget(target);
  if (current === undefined || Array.isArray(current)) return current;
  throw queryError(
    "BadValue",
    `The field '${target.path}' must be an array but is of type ${bsonTypeOf(current)} in document (${operator})`,
  );
}

function eachList(argument: unknown, operator: string): unknown[] {
  if (isPlainDocument(argument) && "$each" in argument) {
    if (!Array.isArray(argument.$each)) {
      throw queryError(
        "BadValue",
        `The argument to $each in ${operator} must be an array but it was of type ${bsonTypeOf(argument.$each)}`,
      );
    }
    return argument.$each.map(deepCopy);
  }
  return [deepCopy(argument)];
}

function integerModifier(value: unknown, name: string): number {
  if (!isNumeric(value) || !Number.isInteger(toNumber(value))) {
    throw queryError(
      "BadValue",
      `The value for ${name} must be an integer value but was given type: ${bsonTypeOf(value)}`,
    );
  }
  return toNumber(value);
}

function sortElements(elements: unknown[], spec: unknown, strings?: StringComparator): unknown[] {
  if (isNumeric(spec) && Math.abs(toNumber(spec)) === 1) {
    // A whole-value sort: wrap each element so that the document sort compares them directly.
    return sortDocuments(
      elements.map((value) => ({ value })),
      { value: toNumber(spec) },
      strings,
    ).map((wrapper) => wrapper.value);
  }
  if (!isPlainDocument(spec) || Object.keys(spec).length === 0) {
    throw queryError(
      "BadValue",
      "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields",
    );
  }
  return sortDocuments(elements as Document[], spec as Document, strings);
}

const push: FieldOperator = (target, argument, strings) => {
  const existing = existingArray(target, "$push");
  const array = existing ?? [];
  const additions = eachList(argument, "$push");
  const modifiers = isPlainDocument(argument) && "$each" in argument ? argument : {};
  for (const name of Object.keys(modifiers)) {
    if (!["$each", "$position", "$sort", "$slice"].includes(name)) {
      throw queryError("BadValue", `Unrecognized clause in $push: ${name}`);
    }
  }
  // mongod's default $position is past any end: the elements are appended.
  const position =
    modifiers.$position === undefined ? Infinity : integerModifier(modifiers.$position, "$position");
  // concat, never push(...)/splice(...): spreading a long $each into arguments overflows the stack.
  let result: unknown[];
  if (position >= array.length) {
    result = array.concat(additions);
  } else {
    const at = position < 0 ? Math.max(0, array.length + position) : position;
    result = array.slice(0, at).concat(additions, array.slice(at));
  }
  if (modifiers.$sort !== undefined) result = sortElements(result, modifiers.$sort, strings);
  let sliced = false;
  if (modifiers.$slice !== undefined) {
    const slice = integerModifier(modifiers.$slice, "$slice");
    const kept = slice >= 0 ? result.slice(0, slice) : result.slice(Math.max(0, result.length + slice));
    sliced = kept.length < result.length;
    result = kept;
  }
  writeTarget(target, result);
  return pushLoggedAs(array.length, position, modifiers.$sort !== undefined || sliced);
};

/**
 * mongod logs a $push's appended elements at their positions only when they went after the
 * existing elements of a non-empty array and no $sort or trimming $slice acted; otherwise the
 * whole array. (mongo src/mongo/db/update/push_node.cpp, insertElementsWithPosition and logUpdate)
 */
function pushLoggedAs(existingLength: number, position: number, reordered: boolean): LoggedAs {
  const appended = existingLength > 0 && position > existingLength;
  return appended && !reordered ? "appendedElements" : "wholeValue";
}

const addToSet: FieldOperator = (target, argument, strings) => {
  const result = (existingArray(target, "$addToSet") ?? []).slice();
  for (const candidate of eachList(argument, "$addToSet")) {
    if (!result.some((element) => valuesEqual(element, candidate, strings))) result.push(candidate);
  }
  writeTarget(target, result);
};

const pop: FieldOperator = (target, argument) => {
  const direction = isNumeric(argument) ? toNumber(argument) : NaN;
  if (direction !== 1 && direction !== -1) {
    throw queryError("FailedToParse", `$pop expects 1 or -1, found: ${String(argument)}`);
  }
  const current = readTarget(target);
  if (current === undefined) return;
  if (!Array.isArray(current)) {
    throw queryError(
      "TypeMismatch",
      `Path '${target.path}' contains an element of non-array type '${bsonTypeOf(current)}'`,
    );
  }
  writeTarget(target, direction === 1 ? current.slice(0, -1) : current.slice(1));
};

/** $pull's condition: a query on document elements, operators on scalar elements, or a value. */
function pullCondition(argument: unknown, strings?: StringComparator): (element: unknown) => boolean {
  if (!isPlainDocument(argument)) return (element) => valuesEqual(element, argument, strings);
  const firstKey = Object.keys(argument)[0] ?? "";
  if (firstKey.startsWith("$") && !["$and", "$or", "$nor"].includes(firstKey)) {
    return compileOperatorSet(argument, {
      subFilter: (filter) => compileFilter(filter, { strings }),
      strings,
    });
  }
  const matches = compileFilter(argument, { strings });
  return (element) => isPlainDocument(element) && matches(element);
}

function removing(
  operator: string,
  compile: (argument: unknown, strings?: StringComparator) => (element: unknown) => boolean,
): FieldOperator {
  return (target, argument, strings) => {
    const current = readTarget(target);
    if (current === undefined) return;
    if (!Array.isArray(current))
      throw queryError("BadValue", `Cannot apply ${operator} to a non-array value`);
    const remove = compile(argument, strings);
    writeTarget(
      target,
      current.filter((element) => !remove(element)),
    );
  };
}

function pullAllCondition(argument: unknown, strings?: StringComparator): (element: unknown) => boolean {
  if (!Array.isArray(argument)) throw queryError("BadValue", "$pullAll requires an array argument");
  return (element) => argument.some((value) => valuesEqual(element, value, strings));
}

export const ARRAY_OPERATORS: Record<string, FieldOperator> = {
  $push: push,
  $addToSet: addToSet,
  $pop: pop,
  $pull: removing("$pull", pullCondition),
  $pullAll: removing("$pullAll", pullAllCondition),
};
