import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { OrderedKeys, type IndexEntry } from "../../../src/storage/ordered-keys.js";

const everything = { before: () => false, after: () => false };

/** The first values of what `keys` holds in `range`, scanned forwards and backwards. */
function assertScans(
  keys: OrderedKeys,
  range: Parameters<OrderedKeys["scan"]>[0],
  forwards: unknown[],
): void {
  assert.deepEqual(
    [...keys.scan(range, false)].map((e) => e.values[0]),
    forwards,
  );
  assert.deepEqual(
    [...keys.scan(range, true)].map((e) => e.values[0]),
    [...forwards].reverse(),
  );
}

void test("ordered keys stay in index order through any inserts and removals, forwards and backwards", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.boolean()), { maxLength: 3000 }),
      (ops) => {
        const keys = new OrderedKeys([-1]);
        const live = new Map<number, IndexEntry>();
        ops.forEach(([value, insert], recordId) => {
          const held = live.get(value);
          if (insert && !held) live.set(value, { values: [value], docKey: String(value), recordId });
          if (!insert && held) live.delete(value);
          if (insert && !held) keys.insert(live.get(value)!);
          if (!insert && held) keys.remove(held);
        });
        assertScans(
          keys,
          everything,
          [...live.keys()].sort((a, b) => b - a),
        );
      },
    ),
  );
});

void test("a scan starts at its range's first key and stops after its last", () => {
  const keys = new OrderedKeys([1]);
  for (let i = 0; i < 5000; i++) keys.insert({ values: [i], docKey: String(i), recordId: i });
  const range = {
    before: (e: IndexEntry) => (e.values[0] as number) < 1200,
    after: (e: IndexEntry) => (e.values[0] as number) > 1204,
  };
  assertScans(keys, range, [1200, 1201, 1202, 1203, 1204]);
});

void test("keys inserted in ascending order, as new ObjectIds come, scan in order across blocks and can be removed", () => {
  const keys = new OrderedKeys([1]);
  const entries = Array.from({ length: 3000 }, (_, i) => ({ values: [i], docKey: String(i), recordId: i }));
  for (const entry of entries) keys.insert(entry);
  keys.insert({ values: [1500.5], docKey: "1500.5", recordId: 3000 });
  for (const entry of entries.filter((_, i) => i % 3 === 0)) keys.remove(entry);
  const expected = [...entries.flatMap((e, i) => (i % 3 !== 0 ? e.values : [])), 1500.5].sort(
    (a, b) => a - b,
  );
  assertScans(keys, everything, expected);
});
