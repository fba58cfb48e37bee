import { test } from "node:test";
import assert from "node:assert/strict";
import type { Plan } from "../../../src/patterns/plan.js";
import { EventPlans } from "../../../src/stream/correction/event-plans.js";
import type { CorrectionTarget } from "../../../src/stream/events/targets.js";
import { outlierRule } from "../patterns/support/rules.js";

const pushed = (id: number): CorrectionTarget => ({
  rule: outlierRule,
  role: "source",
  collection: "sales",
  id,
  due: true,
  shown: { appended: ["user50"] },
});
const moved: Plan = { outcome: "writes", kind: "moved", writes: [], elementsMoved: 1 };

void test("a push onto a book this sidecar never corrected is planned from its event", () => {
  const plan = new EventPlans().guess(pushed(1));
  assert.equal(plan?.outcome === "writes" && plan.elementsMoved, 1);
});

void test("a target whose event showed nothing is read", () => {
  const { shown: _, ...target } = pushed(1);
  assert.equal(new EventPlans().guess(target), undefined);
});

void test("once a book's correction wrote, its next push is read: its chunks exist now", () => {
  const plans = new EventPlans();
  plans.noteOutcome(pushed(1), { outcome: "none" });
  assert.notEqual(plans.guess(pushed(1)), undefined, "a correction that wrote nothing changes nothing");
  plans.noteOutcome(pushed(1), moved);
  assert.equal(plans.guess(pushed(1)), undefined);
  assert.notEqual(plans.guess(pushed(2)), undefined, "other books are still planned from their events");
});

void test("the oldest corrected book is forgotten first, and used again counts as new", () => {
  const plans = new EventPlans(2);
  plans.noteOutcome(pushed(1), moved);
  plans.noteOutcome(pushed(2), moved);
  plans.noteOutcome(pushed(1), moved);
  plans.noteOutcome(pushed(3), moved);
  assert.notEqual(plans.guess(pushed(2)), undefined, "book 2 was the oldest");
  assert.equal(plans.guess(pushed(1)), undefined);
  assert.equal(plans.guess(pushed(3)), undefined);
});
