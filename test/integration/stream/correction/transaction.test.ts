import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent } from "mongodb";
import {
  MAX_COMMIT_TIME_MS,
  ownSession,
  runTransaction,
} from "../../../../src/stream/correction/transaction.js";
import { useTestDatabase } from "../../../support/mongo.js";

const database = useTestDatabase("transaction");

void test("a correction's commit waits for a majority at most MAX_COMMIT_TIME_MS", async () => {
  const client = await database.mongo.newClient({ monitorCommands: true });
  const commits: CommandStartedEvent[] = [];
  client.on("commandStarted", (event) => {
    if (event.commandName === "commitTransaction") commits.push(event);
  });
  const db = client.db(database.db.databaseName);
  await runTransaction(
    (work) => ownSession(client, work),
    { maxAttempts: 1 },
    (session) => db.collection("t").insertOne({ _id: 1 } as never, { session }),
  );
  assert.equal(commits.length, 1);
  assert.equal(commits[0]!.command.maxTimeMS, MAX_COMMIT_TIME_MS);
  assert.equal(commits[0]!.command.writeConcern?.w, "majority");
});
