// The field update operators that do not treat their target as an array: $set, $unset,
// $inc, $mul, $min, $max, $currentDate. Each gets the resolved target, its argument and the
// statement's collation ($min/$max, and the array operators' matching, compare with it).
import { Timestamp } from "bson";
import { compareValues, type StringComparator } from "./bson-order.js";
import { bsonTypeOf, isNumeric, isPlainDocument } from "./bson-types.js";
import { deepCopy } from "./document-copy.js";
import { combineNumbers, zeroLike } from "./numeric-arithmetic.js";
import { queryError } from "./query-error.js";
import { readTarget, removeTarget, writeTarget, type Target } from "./update-path.js";

/**
 * What an operator's oplog entry says it did at its path: by default the path's whole new value;
 * "appendedElements" only for a $push that purely appended.
 * (mongo src/mongo/db/update/modifier_node.cpp, ModifierNode::logUpdate)
 */
export type LoggedAs = "wholeValue" | "appendedElements";

export type FieldOperator = (
  target: Target,
  argument: unknown,
  strings?: StringComparator,
) => LoggedAs | void;

const setField: FieldOperator = (target, argument) => writeTarget(target, deepCopy(argument));

const unsetField: FieldOperator = (target) => removeTarget(target);

function arithmetic(name: "$inc" | "$mul", operation: "add" | "multiply"): FieldOperator {
  return (target, argument) => {
    if (!isNumeric(argument)) {
      const verb = name === "$inc" ? "increment" : "multiply";
      throw queryError(
        "TypeMismatch",
        `Cannot ${verb} with non-numeric argument: {${target.path}: ${String(argument)}}`,
      );
    }
    const current = readTarget(target);
    if (current === undefined) {
      writeTarget(target, operation === "add" ? argument : zeroLike(argument));
      return;
    }
    if (!isNumeric(current)) {
      throw queryError(
        "TypeMismatch",
        `Cannot apply ${name} to a value of non-numeric type. The field '${target.path}' has non-numeric type ${bsonTypeOf(current)}`,
      );
    }
    writeTarget(target, combineNumbers(current, argument, operation));
  };
}

function extreme(keepWhen: (order: number) => boolean): FieldOperator {
  return (target, argument, strings) => {
    const current = readTarget(target);
    if (current === undefined || keepWhen(compareValues(argument, current, strings)))
      writeTarget(target, deepCopy(argument));
  };
}

const currentDate: FieldOperator = (target, argument) => {
  const wantsTimestamp = isPlainDocument(argument) && argument.$type === "timestamp";
  if (isPlainDocument(argument) && argument.$type !== "timestamp" && argument.$type !== "date") {
    throw queryError("BadValue", "The '$type' string field is required to be 'date' or 'timestamp'");
  }
  const now = Date.now();
  writeTarget(target, wantsTimestamp ? new Timestamp({ t: Math.floor(now / 1000), i: 1 }) : new Date(now));
};

export const FIELD_OPERATORS: Record<string, FieldOperator> = {
  $set: setField,
  $setOnInsert: setField,
  $unset: unsetField,
  $inc: arithmetic("$inc", "add"),
  $mul: arithmetic("$mul", "multiply"),
  $min: extreme((order) => order < 0),
  $max: extreme((order) => order > 0),
  $currentDate: currentDate,
};
