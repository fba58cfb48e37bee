// The native evaluator must agree with mingo, which evaluated every `$expr` before it, over
// the expressions the sidecar really sends and over generated change events. The fixture
// fixtures/sidecar-event-exprs.json holds the distinct `$expr` values of the sidecar's
// buildWatchPipeline(rules) for its default configuration (this package imports nothing of
// the sidecar's, so they are copied): print them again when the sidecar's filters change.
// Inputs stay where mingo is right: mingo knows no missing-vs-null order, so the generated
// events never compare one with the other where the sidecar's expressions would not either.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Double, Int32, Long, type Document } from "bson";
import fc from "fast-check";
import { compileExprPredicate, compileMingoPredicate } from "../../../src/query/expression.js";
import { compileNativeExpression } from "../../../src/query/native-expression.js";
import { overTheWire } from "../../support/over-the-wire.js";

const SIDECAR_EXPRESSIONS = overTheWire(
  JSON.parse(
    readFileSync(new URL("fixtures/sidecar-event-exprs.json", import.meta.url), "utf8"),
  ) as Document[],
);

const FIELDS = [
  "customers_purchased",
  "customers_purchased_extra",
  "history",
  "count",
  "reviews",
  "seq",
  "name",
];

/** Sizes around every rule's threshold (10, 50, 1000) and chunk size. */
const size = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.integer({ min: 48, max: 52 }),
  fc.integer({ min: 998, max: 1002 }),
);

const number = fc.oneof(
  fc.integer({ min: -3, max: 1002 }).map((n) => new Int32(n)),
  fc.integer({ min: -3, max: 1002 }).map((n) => Long.fromNumber(n)),
  fc
    .oneof(fc.integer({ min: -3, max: 60 }), fc.double({ min: -3, max: 60, noNaN: true }))
    .map((n) => new Double(n)),
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  size.map((n) => Array.from({ length: n }, (_, i) => ({ user: `u${i}` }))),
  number,
  fc.constantFrom("text", null, true),
  fc.constant({ nested: 1 }),
);

/** updatedFields keys as mongod writes them: a field, "field.<index>" or deeper, or odd suffixes. */
const updatedKey = fc
  .tuple(
    fc.constantFrom(...FIELDS),
    fc.oneof(
      fc.constant(""),
      size.map((n) => `.${n}`),
      size.map((n) => `.${n}.user`),
      fc.constantFrom(".x", ".007", ".-1"),
    ),
  )
  .map(([field, suffix]) => field + suffix);

const updateDescription = fc.record(
  {
    updatedFields: fc.dictionary(updatedKey, value, { maxKeys: 4 }),
    removedFields: fc.subarray(FIELDS, { maxLength: 2 }),
    truncatedArrays: fc.array(fc.record({ field: fc.constantFrom(...FIELDS), newSize: size }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: [] },
);

const changeEvent = fc.record(
  {
    operationType: fc.constantFrom("insert", "update", "replace", "delete"),
    fullDocument: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 4 }),
    updateDescription,
  },
  { requiredKeys: ["operationType"] },
);

type Outcome = { matches: boolean } | { fails: true };

function outcome(test: (doc: Document) => boolean, doc: Document): Outcome {
  try {
    return { matches: test(doc) };
  } catch {
    return { fails: true };
  }
}

/**
 * Expressions composed of the native operators over a document whose fields are all present:
 * numbers stay numbers (an index past the end is defaulted by $ifNull, a $max of nothing by
 * -1), and one-operand operators take their operand unwrapped as the sidecar writes them
 * (mingo's `$size: [<empty array>]` is 1 and its `$max: [<empty array>]` is []).
 */
const { boolean: booleanExpression } = fc.letrec<{ number: unknown; array: unknown; boolean: unknown }>(
  (tie) => ({
    number: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.integer({ min: -2, max: 5 }).map((n) => new Int32(n)),
      fc.constantFrom("$n", "$d", "$l"),
      tie("array").map((array) => ({ $size: array })),
      fc
        .tuple(tie("array"), fc.integer({ min: -4, max: 4 }))
        .map(([array, index]) => ({ $ifNull: [{ $arrayElemAt: [array, index] }, 0] })),
      tie("array").map((array) => ({ $max: [-1, { $max: array }] })),
      fc.tuple(tie("number"), tie("number")).map((operands) => ({ $add: operands })),
      fc
        .tuple(tie("boolean"), tie("number"), tie("number"))
        .map(([test, then, otherwise]) => ({ $cond: { if: test, then, else: otherwise } })),
    ),
    array: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom("$numbers", "$rows.v", { $literal: [new Int32(1), new Int32(2)] }),
      tie("array").map((input) => ({ $map: { input, as: "x", in: { $add: ["$$x", 1] } } })),
      fc.tuple(tie("array"), tie("number")).map(([input, bound]) => ({
        $filter: { input, cond: { $gt: ["$$this", bound] } },
      })),
      fc.tuple(tie("array"), tie("array")).map((operands) => ({ $concatArrays: operands })),
      fc
        .tuple(tie("array"), fc.integer({ min: -4, max: 4 }), fc.option(fc.integer({ min: 1, max: 3 })))
        .map(([array, first, count]) => ({
          $slice: count === null ? [array, first] : [array, first, count],
        })),
    ),
    boolean: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc
        .tuple(fc.constantFrom("$eq", "$ne", "$gt", "$gte", "$lt", "$lte"), tie("number"), tie("number"))
        .map(([name, a, b]) => ({ [name]: [a, b] })),
      fc.tuple(tie("number"), tie("array")).map((operands) => ({ $in: operands })),
      fc.array(tie("boolean"), { minLength: 1, maxLength: 3 }).map((operands) => ({ $and: operands })),
      fc.array(tie("boolean"), { minLength: 1, maxLength: 3 }).map((operands) => ({ $or: operands })),
      tie("boolean").map((operand) => ({ $not: [operand] })),
      tie("array").map((array) => ({ $anyElementTrue: [array] })),
    ),
  }),
);

const numericDocument = fc.record({
  n: fc.integer({ min: -3, max: 6 }).map((n) => new Int32(n)),
  d: fc.double({ min: -3, max: 6, noNaN: true }).map((n) => new Double(n)),
  l: fc.integer({ min: -3, max: 6 }).map((n) => Long.fromNumber(n)),
  numbers: fc.array(number, { maxLength: 5 }),
  rows: fc.array(fc.record({ v: fc.integer({ min: -3, max: 6 }).map((n) => new Int32(n)) }), {
    maxLength: 4,
  }),
});

void describe("native expressions agree with mingo", () => {
  void it("every expression of the sidecar's change-stream filter compiles natively", () => {
    assert.ok(SIDECAR_EXPRESSIONS.length > 0);
    for (const expression of SIDECAR_EXPRESSIONS)
      assert.ok(compileNativeExpression(expression, {}), JSON.stringify(expression));
  });

  void it("the sidecar's expressions decide every generated change event as mingo does", () => {
    const compiled = SIDECAR_EXPRESSIONS.map((expression) => ({
      native: compileExprPredicate(expression),
      mingo: compileMingoPredicate(expression),
    }));
    fc.assert(
      fc.property(changeEvent, (generated) => {
        const event = overTheWire(generated as Document);
        for (const { native, mingo } of compiled)
          assert.deepEqual(outcome(native, event), outcome(mingo, event));
      }),
      { numRuns: 400 },
    );
  });

  void it("generated compositions of the native operators agree", () => {
    fc.assert(
      fc.property(booleanExpression, numericDocument, (expression, doc) => {
        const wired = overTheWire({ expression, doc });
        assert.ok(compileNativeExpression(wired.expression, {}));
        assert.deepEqual(
          outcome(compileExprPredicate(wired.expression), wired.doc),
          outcome(compileMingoPredicate(wired.expression), wired.doc),
        );
      }),
      { numRuns: 500 },
    );
  });

  void it("numeric comparisons agree across Int32, Long, Double and plain numbers", () => {
    const operand = fc.oneof(number, fc.integer({ min: -3, max: 60 }));
    const operator = fc.constantFrom("$eq", "$ne", "$gt", "$gte", "$lt", "$lte");
    fc.assert(
      fc.property(operator, operand, operand, (name, a, b) => {
        const expression = { [name]: ["$a", { $max: ["$b", -100] }] };
        const doc = { a, b };
        assert.deepEqual(
          outcome(compileExprPredicate(expression), doc),
          outcome(compileMingoPredicate(expression), doc),
        );
      }),
      { numRuns: 300 },
    );
  });
});
