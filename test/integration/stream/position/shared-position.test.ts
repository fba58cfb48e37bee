// While replicas stream by partition, the shared position (`changestream:<db>`) moves up to
// the oldest position every partition passed, so that a replica left alone resumes from
// there. docs/operations.md, "Positions".
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import type { Config } from "../../../../src/config/schema.js";
import { partitionOf } from "../../../../src/stream/partitions/hashed-key.js";
import { streamName } from "../../../../src/stream/position/token-store.js";
import {
  insertBook,
  isBookCorrected,
  startReplicasSharing,
  testConfig,
  type TestSidecar,
} from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

let config: Config;
const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("shared_position", {
  setUp: ({ db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  },
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

const sharedPosition = () =>
  fixture.db
    .collection<{ _id: string; resumeToken: Document; clusterTimeSeconds?: number }>(config.stateCollection)
    .findOne({ _id: streamName(config.database) });

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

const streamsItsShare = (sidecar: TestSidecar) =>
  sidecar.runner.status().state === "streaming" && sidecar.runner.status().partitions.length === 2;

void test("replicas streaming by partition move the shared position past what they all corrected", async () => {
  await startReplicasSharing(fixture.mongo, config, ["a", "b"], sidecars);
  const before = (await sharedPosition())!;

  // A time before the writes: a marker's, then an overfilled book in every partition, so that
  // both replicas correct and store their partitions' positions.
  const session = fixture.mongo.client.startSession();
  await fixture.db.collection("marker").insertOne({}, { session });
  const written = session.operationTime!.getHighBitsUnsigned();
  await session.endSession();
  const books = range(1, 13);
  assert.deepEqual(new Set(books.map((id) => partitionOf(id, 4))).size, 4);
  for (const id of books) await insertBook(fixture.db, id, 70);
  for (const id of books)
    await waitUntil(() => isBookCorrected(fixture.db, id, 70), { description: `book ${id} corrected` });

  await waitUntil(async () => ((await sharedPosition())?.clusterTimeSeconds ?? 0) >= written, {
    timeoutMs: 15_000,
    description: "the shared position past the writes",
  });
  const after = (await sharedPosition())!;
  assert.ok(String(after.resumeToken._data) > String(before.resumeToken._data), "it only moved forward");
  assert.ok(sidecars.every(streamsItsShare), "both still stream their share");
});
