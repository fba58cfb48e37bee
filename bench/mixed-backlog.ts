// The sidecar draining a backlog of writes to all three seed collections (issue 35), against a
// bare `db.watch()` draining the same backlog in the same run: the mix of triggers, each
// pattern's alone, and deletes in the full set with loose trades. Each workload gets a fresh
// database, a position stored before its backlog, the bare drain, then a fresh sidecar's.
import type { Db } from "mongodb";
import { setTimeout as sleep } from "node:timers/promises";
import { waitUntil } from "../src/cli/wait-until.js";
import { currentClusterTime } from "../src/stream/position/cluster-time.js";
import { driverOf } from "../src/patterns/registry.js";
import { metricTotal, startSidecar, testConfig, waitForCaughtUp } from "../test/support/harness.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { commandsBetween, commandsPerCorrection, commandTotals, rawDrain } from "./backlog-probes.js";
import { collectGarbage, startClock } from "./measure.js";
import {
  insertMixedDocuments,
  plainDocumentsFor,
  SENTINEL_BOOK,
  triggerCounts,
  verifyMixedCorrected,
  waitForMixedCorrected,
  writeMixedBacklog,
  type TriggerKind,
} from "./mixed-load.js";
import { ownCpuMs, processCpuMs } from "./process-cpu.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { count, heading, ms, printTable } from "./report.js";

const EVENTS = 20_000;
const TRIGGER_EVERY = 5;
const DRAIN_TIMEOUT_MS = 120_000;
export const SIDECAR_SETTINGS = { leaseSeconds: 3, concurrency: 8 };
/** The goal of issue 35 for every workload: the sidecar drains at least this share of the bare stream's rate. */
const GOAL_RATIO = 0.3;

/** The mixed workload's triggers, taking turns among the backlog's every fifth write. */
export const MIXED_CYCLE: readonly TriggerKind[] = ["sale", "trade", "sale", "trade", "review"];

/** A workload: which triggers take turns among the backlog's every fifth write. */
const WORKLOADS: readonly { label: string; cycle: readonly TriggerKind[] }[] = [
  { label: "mixed (2 sales : 2 trades : 1 products)", cycle: MIXED_CYCLE },
  { label: "sales only (outlier moves)", cycle: ["sale"] },
  { label: "trades only (bucket splits)", cycle: ["trade"] },
  { label: "products only (subset trims + copies)", cycle: ["review"] },
  { label: "review deletes and loose trades (propagations, folds)", cycle: ["review-delete", "loose-trade"] },
];

/** MIXED_BACKLOG_ONLY=<text> runs only the workloads whose label contains it (a profile of one). */
function selectedWorkloads(): typeof WORKLOADS {
  const only = process.env.MIXED_BACKLOG_ONLY;
  return only ? WORKLOADS.filter(({ label }) => label.includes(only)) : WORKLOADS;
}

interface Drain {
  events: number;
  rawMs: number;
  sidecarMs: number;
  triggers: number;
  /** CPU per trigger while the sidecar drained: this process (the sidecar, mostly) and the server's. */
  cpuPerTrigger: { sidecar: number; server: number | undefined };
  /** The commands the server ran while the sidecar drained, by name (the bench's own serverStatus left out). */
  commands: Map<string, number>;
  /** transaction_retries_total's rise while the sidecar drained (a failed shared transaction counts once). */
  retries: number;
}

/**
 * The backlog of `cycle`'s triggers in `db`, written while no sidecar runs after one stored its
 * position (and made the collections and indexes), and a bare `db.watch()`'s drain of it.
 */
export async function prepareMixedBacklog(
  mongo: TestMongo,
  db: Db,
  cycle: readonly TriggerKind[],
  events = EVENTS,
) {
  const triggers = triggerCounts(events, TRIGGER_EVERY, cycle);
  const triggerTotal = [...triggers.values()].reduce((sum, n) => sum + n, 0);
  const plainDocuments = plainDocumentsFor(events - triggerTotal);
  await insertMixedDocuments(db, triggers, plainDocuments);
  // Its first start sweeps the documents: a larger backlog's take longer than the harness waits.
  const first = await startSidecar(mongo, config(db), { waitForStreaming: false, productionLogs: true });
  await waitForCaughtUp(first.runner, DRAIN_TIMEOUT_MS);
  await first.stop();
  const from = await currentClusterTime(db);
  await writeMixedBacklog(db, events, TRIGGER_EVERY, cycle, plainDocuments);
  collectGarbage();
  const raw = await rawDrain(db, from, SENTINEL_BOOK);
  collectGarbage();
  return { triggers, triggerTotal, raw };
}

/**
 * Every kind of trigger at once, drained before the measured workloads and not reported: the
 * first workload would otherwise also time both processes' JIT compiling every correction path
 * (the mix, always first, cost a third more CPU per correction in each process than its
 * patterns alone did after it), where a sidecar draining a real backlog has long warmed up.
 * Its backlog, written in well under a second, is left to settle first: a product pushed less
 * than `settleMs` before the sidecar starts is trimmed at once and copied after the wait, and
 * the drain, which ends at one correction per trigger, would end before those copies.
 */
const WARM_UP = {
  events: 5_000,
  cycle: ["sale", "trade", "review", "review-delete", "loose-trade"],
  settled: true,
} as const;

/** Past the rules' `settleMs`: the wait's own timer and the events' clock are not exact. */
const SETTLE_MARGIN_MS = 500;

/** The longest any rule's corrections wait for their writes to settle, in the bench's config. */
function settleMsOf(db: Db): number {
  return Math.max(0, ...config(db).rules.map((rule) => driverOf(rule).planning.settleMs?.(rule) ?? 0));
}

async function drainWorkload(
  mongo: TestMongo,
  server: ServerProcess | undefined,
  cycle: readonly TriggerKind[],
  { events = EVENTS, settled = false } = {},
): Promise<Drain> {
  const db = mongo.client.db(uniqueDatabaseName("bench_mixed"));
  try {
    const { triggers, triggerTotal, raw } = await prepareMixedBacklog(mongo, db, cycle, events);
    if (settled) await sleep(settleMsOf(db) + SETTLE_MARGIN_MS);
    // One correction for each trigger, and the sentinel's.
    const drained = await sidecarDrain(mongo, db, server, triggerTotal + 1);
    await verifyMixedCorrected(db, triggers);
    const perTrigger = (cpuMs: number | undefined) =>
      cpuMs === undefined ? undefined : cpuMs / triggerTotal;
    return {
      events: raw.events,
      rawMs: raw.ms,
      sidecarMs: drained.ms,
      triggers: triggerTotal,
      cpuPerTrigger: { sidecar: perTrigger(drained.ownCpuMs)!, server: perTrigger(drained.serverCpuMs) },
      commands: drained.commands,
      retries: drained.retries,
    };
  } finally {
    await db.dropDatabase();
  }
}

/** A fresh sidecar from the stored position until every trigger is corrected; its startup not counted. */
async function sidecarDrain(
  mongo: TestMongo,
  db: Db,
  server: ServerProcess | undefined,
  corrections: number,
) {
  const sidecar = await startSidecar(mongo, config(db), { waitForStreaming: false, productionLogs: true });
  try {
    await waitUntil(() => sidecar.runner.status().state === "streaming", {
      timeoutMs: DRAIN_TIMEOUT_MS,
      intervalMs: 5,
    });
    const commandsBefore = await commandTotals(db);
    const elapsed = startClock();
    const cpuBefore = { own: ownCpuMs(), server: processCpuMs(server?.pid) };
    const committed = () => metricTotal(sidecar.metrics.corrections);
    const retried = () => metricTotal(sidecar.metrics.transactionRetries);
    const retriesBefore = await retried();
    await waitForMixedCorrected(db, committed, corrections, DRAIN_TIMEOUT_MS);
    const serverAfter = processCpuMs(server?.pid);
    const ms = elapsed();
    const commands = commandsBetween(commandsBefore, await commandTotals(db));
    return {
      ms,
      commands,
      retries: (await retried()) - retriesBefore,
      ownCpuMs: ownCpuMs() - cpuBefore.own,
      serverCpuMs:
        cpuBefore.server === undefined || serverAfter === undefined
          ? undefined
          : serverAfter - cpuBefore.server,
    };
  } finally {
    await sidecar.stop();
  }
}

function config(db: Db) {
  return testConfig(db.databaseName, SIDECAR_SETTINGS);
}

function rows(label: string, drain: Drain): string[][] {
  const raw = (drain.events * 1000) / drain.rawMs;
  const sidecar = (drain.events * 1000) / drain.sidecarMs;
  const ratio = sidecar / raw;
  const { sidecar: ownCpu, server: serverCpu } = drain.cpuPerTrigger;
  return [
    [
      `${label}: ratio (sidecar / bare), bare, sidecar, corrections/s`,
      `${ratio.toFixed(3)}${ratio >= GOAL_RATIO ? "" : " (goal NOT met)"}; ${count(raw)} ev/s; ${count(sidecar)} ev/s; ${count((drain.triggers * 1000) / drain.sidecarMs)}`,
    ],
    [`${label}: CPU per correction, sidecar (bench process) / server`, `${ms(ownCpu)} / ${ms(serverCpu)}`],
    [`${label}: commands per correction`, commandsPerCorrection(drain.commands, drain.triggers)],
    [`${label}: transaction retries per correction`, (drain.retries / drain.triggers).toFixed(3)],
  ];
}

async function run(): Promise<string[]> {
  heading(
    `mixed backlog: ${count(EVENTS)} events (3 sales : 1 trade : 1 product write), every ${TRIGGER_EVERY}th a trigger`,
  );
  // Without MONGODB_URI, the embedded server runs in a process of its own, as mongod would.
  const server = process.env.MONGODB_URI ? undefined : await startServerProcess();
  const mongo = await startTestMongo({ uri: server?.uri });
  try {
    const table: string[][] = [];
    await drainWorkload(mongo, server, WARM_UP.cycle, WARM_UP);
    console.log(`warmed up: ${count(WARM_UP.events)} events of every kind of trigger drained, not measured`);
    for (const { label, cycle } of selectedWorkloads())
      table.push(...rows(label, await drainWorkload(mongo, server, cycle)));
    console.log("verified: every trigger corrected, no element lost or duplicated");
    printTable(["measure", "value"], table);
    return table.map(([name, value]) => `${name}: ${value}`);
  } finally {
    await mongo.close();
    await server?.stop();
  }
}

export const mixedBacklog: Benchmark = {
  name: "mixed-backlog",
  description: "sidecar vs bare change stream over a backlog of writes to all three patterns' collections",
  run,
};
