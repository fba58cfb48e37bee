// The round-trip budget of each pattern (issue 35): the commands the sidecar sends per trigger,
// by command name, live (one trigger at a time, each corrected before the next) and in a
// backlog (every trigger written before the sidecar starts), counted through the driver's
// command monitoring on the sidecar's client (the lease's client is not counted).
import type { CommandStartedEvent, Db, Document } from "mongodb";
import { setTimeout as sleep } from "node:timers/promises";
import {
  runSidecar,
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type TestSidecar,
} from "../test/support/harness.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import { leaseClientOptions } from "../src/stream/lease/lease.js";
import type { Benchmark } from "./benchmark.js";
import { insertMixedDocuments, verifyMixedCorrected, writeTrigger, type TriggerKind } from "./mixed-load.js";
import { heading, printTable } from "./report.js";

const KINDS: readonly TriggerKind[] = ["sale", "trade", "review", "review-delete", "loose-trade"];
/** Each kind alone, then mixed-backlog's mix, where one batch may carry several rules' corrections. */
const WORKLOADS: readonly { label: string; cycle: readonly TriggerKind[] }[] = [
  ...KINDS.map((kind) => ({ label: kind, cycle: [kind] })),
  { label: "mix (2 sales : 2 trades : 1 review)", cycle: ["sale", "trade", "sale", "trade", "review"] },
];
const LIVE_TRIGGERS = 8;
const BACKLOG_TRIGGERS = 256;
/** No command but the stream's for this long: every correction (a copy after `settleMs`, 1 s) is made. */
const QUIET_MS = 1_600;
const STATE_COLLECTION = "pattern_sidecar_state";
/** Monitoring, cursors' ends and the collections' setup at start. */
const NOT_CORRECTIONS = new Set([
  "hello",
  "ping",
  "endSessions",
  "killCursors",
  "listCollections",
  "listIndexes",
  "createIndexes",
  "create",
  "collMod",
]);

/**
 * The sidecar's own bookkeeping on its state collection outside a transaction (the position,
 * the parked targets' poll, sweep checkpoints): not a correction's. The copy ledger is
 * written and read inside corrections' transactions.
 */
function isBookkeeping(commandName: string, command: Document): boolean {
  const collection: unknown = command[commandName];
  return collection === STATE_COLLECTION && command.autocommit !== false;
}

/** Commands counted by name; the change stream's own reads are not the corrections'. */
class CommandCounts {
  readonly byName = new Map<string, number>();
  lastAt = Date.now();

  note(event: CommandStartedEvent): void {
    const { commandName, command } = event;
    if (commandName === "getMore" && command.collection === "$cmd.aggregate") return;
    if (
      commandName === "aggregate" &&
      Array.isArray(command.pipeline) &&
      "$changeStream" in (command.pipeline[0] ?? {})
    )
      return;
    if (isBookkeeping(commandName, command)) return;
    if (NOT_CORRECTIONS.has(commandName)) return;
    if (process.env.ROUND_TRIPS_DEBUG) console.log(commandName, JSON.stringify(command).slice(0, 200));
    this.byName.set(commandName, (this.byName.get(commandName) ?? 0) + 1);
    this.lastAt = Date.now();
  }

  reset(): void {
    this.byName.clear();
    this.lastAt = Date.now();
  }

  async whenQuiet(): Promise<void> {
    while (Date.now() - this.lastAt < QUIET_MS) await sleep(100);
  }

  perTrigger(triggers: number): string {
    const total = [...this.byName.values()].reduce((sum, n) => sum + n, 0);
    const names = [...this.byName.entries()].sort(([a], [b]) => a.localeCompare(b));
    const each = names.map(([name, n]) => `${name} ${(n / triggers).toFixed(2)}`).join(", ");
    return `${(total / triggers).toFixed(2)} (${each})`;
  }
}

const config = (db: Db) => testConfig(db.databaseName, { leaseSeconds: 3, concurrency: 8 });

async function startCounted(mongo: TestMongo, db: Db, counts: CommandCounts): Promise<TestSidecar> {
  const client = await mongo.newClient({ monitorCommands: true });
  client.on("commandStarted", (event) => counts.note(event));
  const settings = config(db);
  const leaseClient = await mongo.newClient(leaseClientOptions(settings.leaseSeconds));
  const handles = { client, db: client.db(settings.database), leaseDb: leaseClient.db(settings.database) };
  return runSidecar(handles, settings, { productionLogs: true, waitForStreaming: false }, async () => {
    await Promise.all([client.close(), leaseClient.close()]);
  });
}

/** The `n`th trigger of a cycle of kinds: its kind, and its number among that kind's. */
function nthTrigger(cycle: readonly TriggerKind[], n: number): [TriggerKind, number] {
  const kind = cycle[n % cycle.length]!;
  const before = cycle.slice(0, n % cycle.length).filter((other) => other === kind).length;
  const perCycle = cycle.filter((other) => other === kind).length;
  return [kind, Math.floor(n / cycle.length) * perCycle + before];
}

function triggerCounts(cycle: readonly TriggerKind[], total: number): Map<TriggerKind, number> {
  const triggers = new Map<TriggerKind, number>();
  for (let n = 0; n < total; n++) {
    const [kind] = nthTrigger(cycle, n);
    triggers.set(kind, (triggers.get(kind) ?? 0) + 1);
  }
  return triggers;
}

/** Commands per trigger of a cycle of kinds: live, each trigger corrected before the next, and as a backlog. */
async function countCycle(mongo: TestMongo, cycle: readonly TriggerKind[]): Promise<[string, string]> {
  const db = mongo.client.db(uniqueDatabaseName("bench_round_trips"));
  const counts = new CommandCounts();
  const triggers = triggerCounts(cycle, LIVE_TRIGGERS + BACKLOG_TRIGGERS);
  let sidecar: TestSidecar | undefined;
  try {
    await insertMixedDocuments(db, triggers);
    // A first sidecar sweeps and stores a position; the counted one streams from it.
    await (await startSidecar(mongo, config(db))).stop();
    sidecar = await startCounted(mongo, db, counts);
    await waitForCaughtUp(sidecar.runner, 30_000);
    await counts.whenQuiet();
    counts.reset();
    for (let n = 0; n < LIVE_TRIGGERS; n++) {
      await writeTrigger(db, ...nthTrigger(cycle, n));
      counts.lastAt = Date.now();
      await counts.whenQuiet();
    }
    const live = counts.perTrigger(LIVE_TRIGGERS);
    await sidecar.stop();
    sidecar = undefined;
    await Promise.all(
      Array.from({ length: BACKLOG_TRIGGERS }, (_, i) =>
        writeTrigger(db, ...nthTrigger(cycle, LIVE_TRIGGERS + i)),
      ),
    );
    counts.reset();
    sidecar = await startCounted(mongo, db, counts);
    await waitForCaughtUp(sidecar.runner, 60_000);
    await counts.whenQuiet();
    const backlog = counts.perTrigger(BACKLOG_TRIGGERS);
    await verifyMixedCorrected(db, triggers);
    return [live, backlog];
  } finally {
    await sidecar?.stop();
    await db.dropDatabase();
  }
}

async function run(): Promise<string[]> {
  heading(
    `round trips: commands per trigger, live (${LIVE_TRIGGERS}, one at a time) and in a backlog (${BACKLOG_TRIGGERS})`,
  );
  const mongo = await startTestMongo();
  try {
    const table: string[][] = [];
    // ROUND_TRIPS_ONLY=<text> counts only the workloads whose label contains it.
    const only = process.env.ROUND_TRIPS_ONLY;
    for (const { label, cycle } of WORKLOADS.filter((workload) => !only || workload.label.includes(only))) {
      const [live, backlog] = await countCycle(mongo, cycle);
      table.push([`${label}: live`, live], [`${label}: backlog`, backlog]);
    }
    printTable(["trigger", "commands per trigger (by name)"], table);
    return table.map(([name, value]) => `${name}: ${value}`);
  } finally {
    await mongo.close();
  }
}

export const roundTrips: Benchmark = {
  name: "round-trips",
  description: "commands the sidecar sends per trigger of each pattern, live and in a backlog",
  run,
};
