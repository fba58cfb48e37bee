// Aggregation expressions compiled once into closures over the original BSON values, for the
// `$expr` of filters (change-stream `$match` stages run one over every event). Only the
// operators in the tables below are emulated, with mongod's semantics; an expression using
// anything else, or a shape the compiler is unsure of, is left whole to mingo (expression.ts).
import type { Document } from "bson";
import { isPlainDocument } from "./bson-types.js";
import { NATIVE_ARRAY_OPERATORS } from "./native-array-operators.js";
import { NATIVE_LOGIC_OPERATORS } from "./native-logic-operators.js";
import {
  NativeUnsupported,
  type Evaluator,
  type ExpressionCompiler,
  type OperatorCompiler,
} from "./native-expression-types.js";
import { readPath } from "./native-field-path.js";
import { NATIVE_VALUE_OPERATORS } from "./native-value-operators.js";

const OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  ...NATIVE_LOGIC_OPERATORS,
  ...NATIVE_ARRAY_OPERATORS,
  ...NATIVE_VALUE_OPERATORS,
  $literal: (argument) => () => argument,
};

/** The document's own slot; `$$ROOT` and `$$CURRENT` name it (a `$match` never rebinds CURRENT). */
const ROOT_SLOT = 0;

/**
 * Compiles `expression` with the command's `let` variables, or answers undefined when it
 * uses something not emulated here. The result may throw NativeUnsupported for one document.
 */
export function compileNativeExpression(
  expression: unknown,
  variables: Document,
): ((doc: Document) => unknown) | undefined {
  const slots = new Map<string, number>([
    ["ROOT", ROOT_SLOT],
    ["CURRENT", ROOT_SLOT],
  ]);
  const template: unknown[] = [undefined];
  for (const [name, value] of Object.entries(variables)) {
    slots.set(name, template.length);
    template.push(value);
  }
  const counter = { next: template.length };
  let evaluate: Evaluator;
  try {
    evaluate = new SlotCompiler(slots, counter).compile(expression);
  } catch (error) {
    if (error instanceof NativeUnsupported) return undefined;
    throw error;
  }
  // Every slot exists up front, so that the frame stays a packed array.
  while (template.length < counter.next) template.push(undefined);
  return (doc) => {
    const frame = template.slice();
    frame[ROOT_SLOT] = doc;
    return evaluate(frame);
  };
}

class SlotCompiler implements ExpressionCompiler {
  constructor(
    private readonly slots: ReadonlyMap<string, number>,
    private readonly counter: { next: number },
  ) {}

  compile(expression: unknown): Evaluator {
    if (typeof expression === "string") return this.compileString(expression);
    if (Array.isArray(expression)) return compileArrayLiteral(expression.map((item) => this.compile(item)));
    if (isPlainDocument(expression)) return this.compileDocument(expression);
    if (expression === undefined) throw new NativeUnsupported("an undefined value");
    return () => expression;
  }

  withVariable(name: string): { slot: number; compiler: ExpressionCompiler } {
    if (!/^[a-z][A-Za-z0-9_]*$/.test(name)) throw new NativeUnsupported(`variable name ${name}`);
    const slot = this.counter.next++;
    return { slot, compiler: new SlotCompiler(new Map(this.slots).set(name, slot), this.counter) };
  }

  private compileString(text: string): Evaluator {
    if (!text.startsWith("$")) return () => text;
    if (!text.startsWith("$$")) return pathReader(ROOT_SLOT, fieldPathParts(text.slice(1)));
    const [name, ...parts] = fieldPathParts(text.slice(2));
    if (name === undefined) throw new NativeUnsupported(`variable ${text}`);
    // $$REMOVE is the missing value: a field it is given is left out.
    if (name === "REMOVE" && parts.length === 0) return () => undefined;
    const slot = this.slots.get(name);
    // Other system variables ($$NOW, ...) and unknown names keep mingo's handling.
    if (slot === undefined) throw new NativeUnsupported(`variable $$${name}`);
    return pathReader(slot, parts);
  }

  private compileDocument(spec: Record<string, unknown>): Evaluator {
    const keys = Object.keys(spec);
    const [first] = keys;
    if (first === undefined) return () => ({});
    if (!first.startsWith("$")) return this.compileObjectLiteral(spec, keys);
    const operator = OPERATORS[first];
    if (keys.length !== 1 || operator === undefined) throw new NativeUnsupported(`operator ${first}`);
    return operator(spec[first], this);
  }

  /** `{a: <expression>, ...}`: a new document; fields whose value is missing are left out. */
  private compileObjectLiteral(spec: Record<string, unknown>, keys: string[]): Evaluator {
    if (keys.some((key) => key.startsWith("$") || key.includes(".")))
      throw new NativeUnsupported("an expression object with dotted or $ field names");
    const fields = keys.map((key) => [key, this.compile(spec[key])] as const);
    return (frame) => {
      const result: Record<string, unknown> = {};
      for (const [key, evaluate] of fields) {
        const value = evaluate(frame);
        if (value !== undefined) result[key] = value;
      }
      return result;
    };
  }
}

/** mongod's ExpressionArray: a missing element becomes null, an array cannot hold "missing". */
function compileArrayLiteral(items: Evaluator[]): Evaluator {
  return (frame) =>
    items.map((item) => {
      const value = item(frame);
      return value === undefined ? null : value;
    });
}

function fieldPathParts(path: string): string[] {
  const parts = path.split(".");
  if (parts.some((part) => part === "" || part.startsWith("$")))
    throw new NativeUnsupported(`field path ${path}`);
  return parts;
}

function pathReader(slot: number, parts: string[]): Evaluator {
  if (parts.length === 0) return (frame) => frame[slot];
  return (frame) => readPath(frame[slot], parts);
}
