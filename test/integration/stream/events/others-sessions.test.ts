// A replica streaming its partitions leaves out, on the server, the transactions of the
// sessions every other replica's leases list (watch-pipeline.ts): its stream's `lsid.id`
// `$nin` holds them, whenever the other replica joined and took its share.
import { test } from "node:test";
import type { Binary, CommandStartedEvent, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { sessionIdHex } from "../../../../src/stream/lease/session-pool.js";
import { runSidecar, startReplicasSharing, testConfig, type TestSidecar } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const fixture = useTestDatabase("others_sessions");

/** The sessions (as hex) that the change streams opened on `client` leave out, the latest stream's. */
function excludedByLatestStream(pipelines: Document[][]): Set<string> {
  const match = pipelines.at(-1)?.[1]?.$match as Document | undefined;
  const excluded = (match?.["lsid.id"] as { $nin?: Binary[] } | undefined)?.$nin ?? [];
  return new Set(excluded.map(sessionIdHex));
}

void test("a replica's stream leaves out the sessions of a replica that joined after it", async () => {
  const { mongo, db } = fixture;
  const config = testConfig(db.databaseName, { leaseSeconds: 1, partitions: 4 });
  const client = await mongo.newClient({ monitorCommands: true });
  const pipelines: Document[][] = [];
  client.on("commandStarted", (event: CommandStartedEvent) => {
    const pipeline = event.command.pipeline as Document[] | undefined;
    if (event.commandName === "aggregate" && pipeline?.[0]?.$changeStream) pipelines.push(pipeline);
  });
  const replicas: TestSidecar[] = [];
  try {
    // The first streams alone before the second is started.
    const handles = { client, db: client.db(db.databaseName) };
    replicas.push(await runSidecar(handles, config, { holderId: "first" }, () => client.close()));
    await startReplicasSharing(mongo, config, ["second"], replicas);
    const state = db.collection<{ holder: string; sessions?: Binary[] }>(config.stateCollection);
    const secondsSessions = async () =>
      (await state.find({ holder: "second", sessions: { $exists: true } }).toArray()).flatMap(
        (lease) => lease.sessions!,
      );
    // The first's stream started before the second existed: only a stream started again holds them.
    await waitUntil(
      async () => {
        const sessions = await secondsSessions();
        const excluded = excludedByLatestStream(pipelines);
        return sessions.length > 0 && sessions.every((id) => excluded.has(sessionIdHex(id)));
      },
      { timeoutMs: 15_000, description: "the first replica's stream to leave out the second's sessions" },
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
});
