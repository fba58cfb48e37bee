// The native evaluator must agree with mingo, which evaluated every `$expr` before it, over
// the expressions the sidecar really sends (fixtures/sidecar-event-exprs.json, printed from
// its buildWatchPipeline with the default rules) and over generated change events. Inputs
// stay where mingo is right: mingo knows no missing-vs-null order, so the generated events
// never compare one with the other where the sidecar's expressions would not either.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { deserialize, Double, Int32, Long, serialize, type Document } from "bson";
import fc from "fast-check";
import { compileExprPredicate, compileMingoPredicate } from "../../../src/query/expression.js";
import { compileNativeExpression } from "../../../src/query/native-expression.js";

/** As the wire hands them over: numbers as Int32 and Double (the server decodes with promoteValues: false). */
function overTheWire<T>(value: T): T {
  return deserialize(serialize({ value }), { promoteValues: false }).value as T;
}

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
