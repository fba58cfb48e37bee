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

/** Evaluators for a fixed number of operands. */
interface Fixed {
  1: [Evaluator];
  2: [Evaluator, Evaluator];
  3: [Evaluator, Evaluator, Evaluator];
}

/** Compiles an operator's `count` operands, exactly that many. */
export function compileExactly<N extends keyof Fixed>(
  operator: string,
  argument: unknown,
  compiler: ExpressionCompiler,
  count: N,
): Fixed[N] {
  // compileOperands refused any other count.
  return compileOperands(operator, argument, compiler, exactly(count)) as Fixed[N];
}

/** Compiles an operator's `count` operands and one more that may be left out. */
export function compileWithOptional<N extends keyof Fixed>(
  operator: string,
  argument: unknown,
  compiler: ExpressionCompiler,
  count: N,
): [...Fixed[N], Evaluator?] {
  // compileOperands refused fewer than `count` or more than `count + 1`.
  return compileOperands(operator, argument, compiler, { min: count, max: count + 1 }) as [
    ...Fixed[N],
    Evaluator?,
  ];
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
