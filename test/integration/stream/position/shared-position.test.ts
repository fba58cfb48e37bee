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
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";

let config: Config;
const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("shared_position", {
  setUp: ({ db }) => {
    config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  },
  tearDown: async () => {
    await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  },
});

const sharedPosition = () =>
  fixture.mongo.client
    .db(config.database)
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

const positionIds = (partitions: readonly number[]) => partitions.map((p) => `position.partition.${p}`);

const booksIn = (partition: number) => range(100, 300).filter((id) => partitionOf(id, 4) === partition);

const tokenOf = (doc: { resumeToken: Document }) => String(doc.resumeToken._data);

void test("the shared position is stored where none is, once the partitions missing when the tender stored its own have theirs", async () => {
  // Two replicas that began by partition at once (their first start's sweep handed over before
  // any stream led) have no shared position, and the tender's first store may find the other's
  // partitions unstored; when the other's are stored, the tender's stream may be idle.
  await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  const db = fixture.mongo.client.db(uniqueDatabaseName("shared_position_none"));
  config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  await startReplicasSharing(fixture.mongo, config, ["a", "b"], sidecars);
  const tender = sidecars.find((sidecar) => sidecar.runner.status().partitions.includes(0))!;
  const state = db.collection<{ _id: string; resumeToken: Document }>(config.stateCollection);
  const othersIds = positionIds(sidecars.find((sidecar) => sidecar !== tender)!.runner.status().partitions);
  const tendersIds = positionIds(tender.runner.status().partitions);
  // In _id order, so that the tender's positions read at two times pair up.
  const positionsOf = (ids: string[]) =>
    state
      .find({ _id: { $in: ids } })
      .sort({ _id: 1 })
      .toArray();
  // Streaming, a replica stores its positions once its first batch is read, a moment later,
  // each partition's with a write of its own.
  await waitUntil(async () => (await positionsOf([...othersIds, ...tendersIds])).length === 4, {
    description: "both replicas' positions stored",
  });
  const othersPositions = await positionsOf(othersIds);

  // Until the tender stores its own while the other's are gone (the other's stream restarts
  // once after sharing and stores them again): a book under the threshold, in the tender's
  // partition, which no stream's filter passes, moves the tender's post-batch token only.
  // What each of the other's positions held when last deleted: none the tender read was newer.
  const lastDeleted = new Map(othersPositions.map((doc) => [doc._id, doc]));
  let storedWhileOthersGone = false;
  for (const book of booksIn(0)) {
    await state.deleteOne({ _id: streamName(config.database) });
    for (const _id of othersIds) {
      const deleted = await state.findOneAndDelete({ _id });
      if (deleted) lastDeleted.set(_id, deleted);
    }
    const before = await positionsOf(tendersIds);
    await insertBook(db, book, 10);
    await waitUntil(
      async () => (await positionsOf(tendersIds)).every((doc, i) => tokenOf(doc) > tokenOf(before[i]!)),
      { description: "the tender's positions stored past the book" },
    );
    storedWhileOthersGone = (await positionsOf(othersIds)).length === 0;
    if (storedWhileOthersGone) break;
  }
  assert.ok(storedWhileOthersGone, "the tender stored its own while the other's were gone");
  // As they were when deleted, and only where still gone: one the other stored again
  // meanwhile is newer, and stays. An older one would move a position backwards, which no
  // replica does, and the shared position the tender made from what it read could be past it.
  for (const { _id, ...position } of lastDeleted.values())
    await state.updateOne({ _id }, { $setOnInsert: position }, { upsert: true });

  await waitUntil(async () => (await sharedPosition()) !== null, {
    timeoutMs: 15_000,
    description: "the shared position stored",
  });
  const stored = tokenOf((await sharedPosition())!);
  const current = (await positionsOf([...tendersIds, ...othersIds])).map(tokenOf).sort();
  assert.ok(stored >= othersPositions.map(tokenOf).sort()[0]!, "past what the other had passed");
  assert.ok(stored <= current[0]!, "not past a partition's position");
});
