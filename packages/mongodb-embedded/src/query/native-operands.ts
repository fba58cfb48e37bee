// How operators take their arguments, as mongod parses them: a list of operands (a
// non-array argument is the one operand), or named arguments in a document. A count or a
// name mongod would refuse while parsing is left to mingo, which reports it as today.
import { isPlainDocument } from "./bson-types.js";
import { NativeUnsupported, type Evaluator, type ExpressionCompiler } from "./native-expression-types.js";

interface Arity {
  min: number;
  max: number;
}

export const exactly = (count: number): Arity => ({ min: count, max: count });
export const atLeast = (count: number): Arity => ({ min: count, max: Infinity });

/** Compiles an operator's operands, checking their count. */
export function compileOperands(
  operator: string,
  argument: unknown,
  compiler: ExpressionCompiler,
  arity: Arity = atLeast(0),
): Evaluator[] {
  const list = Array.isArray(argument) ? argument : [argument];
  if (list.length < arity.min || list.length > arity.max)
    throw new NativeUnsupported(`${operator} with ${list.length} operands`);
  return list.map((operand) => compiler.compile(operand));
}

/** An operator's named arguments: every required one present, none unknown. */
export function namedArguments(
  operator: string,
  argument: unknown,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (!isPlainDocument(argument)) throw new NativeUnsupported(`${operator} without named arguments`);
  const known = new Set([...required, ...optional]);
  const names = Object.keys(argument);
  if (names.some((name) => !known.has(name)) || required.some((name) => !names.includes(name)))
    throw new NativeUnsupported(`${operator} with arguments ${names.join(", ")}`);
  return argument;
}
