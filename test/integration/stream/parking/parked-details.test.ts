// A parked target keeps its detail (a delete to propagate carries the deleted entry, which
// nothing in the database names any more), and is parked beside a plain correction of the
// same document, not in its place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ParkedTargets } from "../../../../src/stream/parking/parked-targets.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { testConfig } from "../../../support/harness.js";

const fixture = useTestDatabase("parked_details");

void test("a parked target with a detail comes back with it, beside a parked plain target of its document", async () => {
  const config = testConfig(fixture.db.databaseName);
  const rule = config.rules.find((candidate) => candidate.pattern === "subset")!;
  const parked = new ParkedTargets(fixture.db, config.stateCollection, config.rules, 0);
  const plain = { rule, role: "source", collection: "products", id: 7 };
  const deletion = { ...plain, role: "deleted-entry", detail: { entryId: 12, deletedId: "r12" } };

  await parked.park(plain, new Error("refused"), 3);
  await parked.park(deletion, new Error("refused"), 3);
  const listed = await parked.list({ dueOnly: false });
  assert.deepEqual(listed.map((target) => [target.role, target.id, target.detail]).sort(), [
    ["deleted-entry", 7, { entryId: 12, deletedId: "r12" }],
    ["source", 7, undefined],
  ]);

  await parked.unpark(deletion);
  assert.deepEqual(
    (await parked.list({ dueOnly: false })).map((target) => target.role),
    ["source"],
  );
});
