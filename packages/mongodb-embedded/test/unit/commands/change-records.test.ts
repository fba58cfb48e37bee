// What the change log keeps of each write: mongod's oplog holds an update's delta, not its
// document, and keeps images only for collections with changeStreamPreAndPostImages. A log
// that kept both images of every update would hold a version of each document per change.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Document } from "bson";
import { dispatchCommand } from "../../../src/commands/dispatcher.js";
import { eventPosition } from "../../../src/changestream/resume-token.js";
import { ServerState } from "../../../src/server-state.js";

const server = new ServerState({ host: "127.0.0.1", port: 0, changeHistoryLimit: 100, version: "7.0" });
after(() => server.close());
const connection = { id: 1, appName: undefined, signal: new AbortController().signal, destroy: () => {} };

async function run(body: Document): Promise<Document> {
  const reply = await dispatchCommand(body, "shop", connection, server);
  assert.equal(reply.ok, 1, JSON.stringify(reply));
  return reply;
}

/** The records of writes to documents of `coll`, oldest first (not its creation's). */
function records(coll: string) {
  return server.changeLog
    .recordsFrom(eventPosition(0n, 0))
    .map((change) => change.record)
    .filter((record) => record.coll === coll && record.documentKey !== undefined);
}

void test("an update is logged as its delta, without the document before or after it", async () => {
  await run({ insert: "plain", documents: [{ _id: 1, list: ["a"] }] });
  await run({ update: "plain", updates: [{ q: { _id: 1 }, u: { $push: { list: "b" } } }] });
  await run({ delete: "plain", deletes: [{ q: { _id: 1 }, limit: 1 }] });
  const [insert, update, remove] = records("plain");
  assert.deepEqual(insert?.postImage, { _id: 1, list: ["a"] }, "an insert's event carries its document");
  assert.deepEqual(update?.update?.description, {
    updatedFields: { "list.1": "b" },
    removedFields: [],
    truncatedArrays: [],
  });
  assert.deepEqual(
    [update?.preImage, update?.postImage, remove?.preImage],
    [undefined, undefined, undefined],
  );
});

void test("with changeStreamPreAndPostImages, an update keeps both images, and a delete its pre-image", async () => {
  await run({ create: "imaged", changeStreamPreAndPostImages: { enabled: true } });
  await run({ insert: "imaged", documents: [{ _id: 1, n: 1 }] });
  await run({ update: "imaged", updates: [{ q: { _id: 1 }, u: { $set: { n: 2 } } }] });
  await run({ delete: "imaged", deletes: [{ q: { _id: 1 }, limit: 1 }] });
  const [, update, remove] = records("imaged");
  assert.deepEqual(
    [update?.preImage, update?.postImage],
    [
      { _id: 1, n: 1 },
      { _id: 1, n: 2 },
    ],
  );
  assert.deepEqual(update?.update?.description.updatedFields, { n: 2 });
  assert.deepEqual(remove?.preImage, { _id: 1, n: 2 });
});
