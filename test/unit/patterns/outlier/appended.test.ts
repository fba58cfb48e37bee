// A plan from a push's change event (planAppendedMove) against the plan a read of the same
// book makes (planOutlierMove), and what an event must show for one to be made at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Document } from "mongodb";
import { appendedPastThreshold } from "../../../../src/patterns/outlier/appended.js";
import { planAppendedMove, planOutlierMove } from "../../../../src/patterns/outlier/planner.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { outlierRule, users } from "../support/rules.js";

const positions = (entries: [string, unknown][]) => new Map(entries);

void test("a push of one entry onto a full book shows that entry", () => {
  const shown = appendedPastThreshold(outlierRule, positions([["customers_purchased.50", "user50"]]));
  assert.deepEqual(shown, ["user50"]);
});

void test("a push of several entries shows them in position order, whatever the order of updatedFields", () => {
  const set = positions([
    ["customers_purchased.52", "c"],
    ["customers_purchased.50", "a"],
    ["customers_purchased.51", "b"],
  ]);
  assert.deepEqual(appendedPastThreshold(outlierRule, set), ["a", "b", "c"]);
});

void test("entries set below the threshold and other arrays' entries are no part of what was appended", () => {
  const set = positions([
    ["customers_purchased.3", "changed"],
    ["customers_purchased.50", "a"],
    ["other.50", "x"],
    ["customers_purchasedX.51", "y"],
  ]);
  assert.deepEqual(appendedPastThreshold(outlierRule, set), ["a"]);
});

void test("an event that shows less than everything past the threshold shows nothing to plan from", () => {
  const cases: [string, [string, unknown][]][] = [
    ["a push onto a book already past the threshold", [["customers_purchased.51", "b"]]],
    [
      "a gap",
      [
        ["customers_purchased.50", "a"],
        ["customers_purchased.52", "c"],
      ],
    ],
    ["no entry past the threshold", [["customers_purchased.49", "a"]]],
    ["no position at all", [["title", "t"]]],
  ];
  for (const [name, entries] of cases)
    assert.equal(appendedPastThreshold(outlierRule, positions(entries)), undefined, name);
  assert.equal(appendedPastThreshold(outlierRule, undefined), undefined, "an event without positions");
});

/** The plan without what only a plan made without reading carries: the guard of the extras and `absent`. */
function withoutGuesswork(plan: Plan): Plan {
  if (plan.outcome !== "writes") return plan;
  const { absent: _, ...rest } = plan;
  const [trim, ...others] = rest.writes;
  if (trim?.op !== "updateOne") return rest;
  const { $expr: __, ...filter } = trim.filter;
  return { ...rest, writes: [{ ...trim, filter }, ...others] };
}

void test("the plan from the event is the plan a read of the book with no chunk makes, guarded", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.oneof(fc.string(), fc.integer(), fc.record({ u: fc.string() })), {
        minLength: 1,
        maxLength: 12,
      }),
      (threshold, chunkSize, appended) => {
        const rule = { ...outlierRule, threshold, chunkSize };
        const source: Document = { _id: 7, customers_purchased: [...users(0, threshold), ...appended] };
        const guessed = planAppendedMove(rule, 7, appended);
        assert.deepEqual(withoutGuesswork(guessed), planOutlierMove(rule, { source, lastChunk: null }));
        assert.ok(guessed.outcome === "writes");
        assert.deepEqual(guessed.absent, [{ collection: "extra_sales", filter: { book_id: 7 } }]);
        const trim = guessed.writes[0];
        assert.ok(trim?.op === "updateOne");
        assert.deepEqual(
          trim.filter.$expr,
          {
            $eq: [
              {
                $slice: [
                  { $cond: [{ $isArray: "$customers_purchased" }, "$customers_purchased", []] },
                  threshold,
                  appended.length,
                ],
              },
              { $literal: appended },
            ],
          },
          "the extras moved are the very entries the source ends with",
        );
      },
    ),
  );
});
