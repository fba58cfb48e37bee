// The shapes shared by the native expression compiler (native-expression.ts) and its operator
// tables, kept apart so that the tables need not import the compiler that imports them.

/**
 * A compiled expression. The frame holds the document in slot 0 and the variables in the
 * slots the compiler gave them; the result `undefined` is mongod's "missing".
 */
export type Evaluator = (frame: unknown[]) => unknown;

export interface ExpressionCompiler {
  compile(expression: unknown): Evaluator;
  /** A compiler in which `name` is a variable held in the returned slot ($map's and $filter's `as`). */
  withVariable(name: string): { slot: number; compiler: ExpressionCompiler };
}

/** Compiles one operator's argument (what follows `$name:`). */
export type OperatorCompiler = (argument: unknown, compiler: ExpressionCompiler) => Evaluator;

/**
 * Thrown for anything the native compiler does not emulate: while compiling, the whole
 * expression stays with mingo; while evaluating (a Date or Decimal128 in arithmetic), that
 * document is evaluated by mingo instead.
 */
export class NativeUnsupported extends Error {
  constructor(what: string) {
    super(`not evaluated natively: ${what}`);
    this.name = "NativeUnsupported";
  }
}
