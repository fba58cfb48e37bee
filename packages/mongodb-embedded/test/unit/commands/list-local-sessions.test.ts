import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, it } from "node:test";
import { Binary, type Document } from "bson";
import { aggregate } from "../../../src/commands/aggregate.js";
import { ServerError } from "../../../src/errors.js";
import { ServerState } from "../../../src/server-state.js";

const server = new ServerState({ host: "127.0.0.1", port: 0, changeHistoryLimit: 100, version: "7.0" });
after(() => server.close());
const lsid = { id: new Binary(Buffer.alloc(16, 7), Binary.SUBTYPE_UUID) };
server.sessions.touch(lsid, new Date(5000));

const connection = { id: 1, appName: undefined, signal: new AbortController().signal, destroy: () => {} };
async function run(pipeline: Document[], target: unknown = 1): Promise<Document[]> {
  const body = { aggregate: target, pipeline, cursor: {} };
  const reply = await aggregate({ name: "aggregate", db: "admin", body, connection }, server);
  return (reply.cursor as Document).firstBatch as Document[];
}
const withCode = (code: number) => (error: unknown) => error instanceof ServerError && error.code === code;

void describe("$listLocalSessions", () => {
  void it("lists each session with the no-auth user digest and its last use", async () => {
    const [session] = await run([{ $listLocalSessions: {} }]);
    const digest = createHash("sha256").update("").digest();
    assert.deepEqual(session, {
      _id: { id: lsid.id, uid: new Binary(digest, Binary.SUBTYPE_DEFAULT) },
      lastUse: new Date(5000),
    });
  });

  void it("lists the same sessions for allUsers and for the unauthenticated user", async () => {
    assert.equal((await run([{ $listLocalSessions: { allUsers: true } }])).length, 1);
    assert.equal((await run([{ $listLocalSessions: { users: [{ user: "", db: "" }] } }])).length, 1);
  });

  void it("lists nothing for a named user, since no session is authenticated", async () => {
    assert.deepEqual(await run([{ $listLocalSessions: { users: [{ user: "app", db: "admin" }] } }]), []);
  });

  void it("feeds the following stages", async () => {
    const result = await run([{ $listLocalSessions: {} }, { $project: { _id: 0, seen: "$lastUse" } }]);
    assert.deepEqual(result, [{ seen: new Date(5000) }]);
  });

  void it("refuses allUsers together with users (UnsupportedFormat)", async () => {
    const spec = { allUsers: true, users: [{ user: "", db: "" }] };
    await assert.rejects(run([{ $listLocalSessions: spec }]), withCode(12));
  });

  void it("refuses a non-object spec and unknown fields", async () => {
    await assert.rejects(run([{ $listLocalSessions: 1 }]), withCode(14));
    await assert.rejects(run([{ $listLocalSessions: { everyone: true } }]), withCode(40415));
  });

  void it("must run with {aggregate: 1}, not on a collection", async () => {
    await assert.rejects(run([{ $listLocalSessions: {} }], "trades"), withCode(73));
  });

  void it("is only valid as the first stage", async () => {
    await assert.rejects(run([{ $match: {} }, { $listLocalSessions: {} }]), withCode(40602));
  });
});
