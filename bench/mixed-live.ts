// Live latency on the mix of issue 35: triggers at 200/s, 2 sales : 2 trades : 1 product push,
// from the write to seeing its correction (a book's overflow chunk, a bucket's split-off one,
// a product's trimmed array), per pattern, against the same writer and observer with no
// correction between them (the bare round); then each pattern alone, for its CPU per correction.
// The sidecar runs as deployed (sidecar-process.ts), not on the writer's and observer's event loop.
import type { ChangeStreamDocument, Db } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { bareLatencies, triggerLatencies, type TriggerTimes } from "./backlog-probes.js";
import { percentile } from "./measure.js";
import { fullBucketId, insertMixedDocuments, writeTrigger, type TriggerKind } from "./mixed-load.js";
import { processCpuMs } from "./process-cpu.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { startSidecarProcess, type SidecarProcess } from "./sidecar-process.js";
import { count, heading, ms, printTable } from "./report.js";

const RATE = 200;
const WARM_UP = 400;
const MEASURED = 2000;
/** Triggers of each pattern's round alone. */
const ALONE = 1000;
const MIX: readonly TriggerKind[] = ["sale", "trade", "sale", "trade", "review"];
const P99_GOAL_MS = 25;

/** The trigger of each global index: its kind and its id among its kind's documents. */
interface Trigger {
  kind: TriggerKind;
  id: number;
}

function schedule(cycle: readonly TriggerKind[], total: number): Trigger[] {
  const next = new Map<TriggerKind, number>();
  return Array.from({ length: total }, (_, i) => {
    const kind = cycle[i % cycle.length]!;
    const id = next.get(kind) ?? 0;
    next.set(kind, id + 1);
    return { kind, id };
  });
}

/** The correction's own event: the overflow chunk, the split-off bucket, the product's trimmed array. */
const CORRECTIONS = {
  $match: {
    $or: [
      { "ns.coll": { $in: ["extra_sales", "trades"] }, operationType: "insert" },
      {
        "ns.coll": "products",
        operationType: "update",
        "updateDescription.updatedFields.reviews": { $exists: true },
      },
    ],
  },
};

/** The kind and id whose correction `event` shows, if it shows one. */
function correctedTrigger(event: ChangeStreamDocument): Trigger | undefined {
  if (!("ns" in event) || !("documentKey" in event)) return undefined;
  const key = event.documentKey._id as unknown;
  if (event.ns.coll === "extra_sales")
    return { kind: "sale", id: (key as { book_id: number }).book_id - 100_000 };
  if (event.ns.coll === "products") return { kind: "review", id: key as number };
  const split = typeof key === "string" ? /^t(\d+)_/.exec(key) : null;
  if (!split || key === fullBucketId(Number(split[1]))) return undefined;
  return { kind: "trade", id: Number(split[1]) };
}

/** Sends triggers `from`..`to` of `triggers` at RATE and times each one to its correction. */
function timeTriggers(db: Db, triggers: readonly Trigger[], from: number, to: number): Promise<TriggerTimes> {
  const indexOf = new Map(triggers.map((trigger, i) => [`${trigger.kind}:${trigger.id}`, i]));
  const ids = Array.from({ length: to - from }, (_, i) => from + i);
  return triggerLatencies(ids, RATE, {
    observe: () => db.watch([CORRECTIONS]),
    idOf: (event) => {
      const trigger = correctedTrigger(event);
      return trigger && indexOf.get(`${trigger.kind}:${trigger.id}`);
    },
    trigger: (i) => writeTrigger(db, triggers[i]!.kind, triggers[i]!.id),
  });
}

interface Round {
  /** Latencies by kind (ms), triggers never seen left out. */
  seen: Map<TriggerKind, number[]>;
  missed: number;
  cpuPerTrigger: CpuPerTrigger;
}

/** CPU per trigger of the sidecar's process and the server's. */
interface CpuPerTrigger {
  sidecar: number | undefined;
  server: number | undefined;
}

/** Runs `work` over `triggers` triggers and gives the CPU each process spent per trigger. */
async function withCpu<T>(
  processes: { server: ServerProcess | undefined; sidecar?: SidecarProcess },
  triggers: number,
  work: () => Promise<T>,
): Promise<{ result: T; cpuPerTrigger: CpuPerTrigger }> {
  const pids = { sidecar: processes.sidecar?.pid, server: processes.server?.pid };
  const before = { sidecar: processCpuMs(pids.sidecar), server: processCpuMs(pids.server) };
  const result = await work();
  const perTrigger = (after: number | undefined, start: number | undefined) =>
    after === undefined || start === undefined ? undefined : (after - start) / triggers;
  return {
    result,
    cpuPerTrigger: {
      sidecar: perTrigger(processCpuMs(pids.sidecar), before.sidecar),
      server: perTrigger(processCpuMs(pids.server), before.server),
    },
  };
}

async function sidecarRound(
  mongo: TestMongo,
  server: ServerProcess | undefined,
  cycle: readonly TriggerKind[],
  warmUp: number,
  measured: number,
): Promise<Round> {
  const db = mongo.client.db(uniqueDatabaseName("bench_mixed_live"));
  let sidecar: SidecarProcess | undefined;
  try {
    const triggers = schedule(cycle, warmUp + measured);
    const counts = new Map<TriggerKind, number>();
    for (const { kind } of triggers) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    await insertMixedDocuments(db, counts);
    sidecar = await startSidecarProcess(mongo.uri, {
      database: db.databaseName,
      leaseSeconds: 3,
      concurrency: 8,
    });
    await sidecar.waitForCaughtUp(60_000);
    await timeTriggers(db, triggers, 0, warmUp);
    const { result: times, cpuPerTrigger } = await withCpu({ server, sidecar }, measured, () =>
      timeTriggers(db, triggers, warmUp, warmUp + measured),
    );
    const seen = new Map<TriggerKind, number[]>();
    times.seen.forEach((latency, i) => {
      if (Number.isNaN(latency)) return;
      const { kind } = triggers[warmUp + i]!;
      seen.set(kind, [...(seen.get(kind) ?? []), latency]);
    });
    return { seen, missed: times.seen.filter(Number.isNaN).length, cpuPerTrigger };
  } finally {
    await sidecar?.stop();
    await db.dropDatabase();
  }
}

async function bareRound(mongo: TestMongo, server: ServerProcess | undefined) {
  const db = mongo.client.db(uniqueDatabaseName("bench_mixed_bare"));
  try {
    const ids = Array.from({ length: MEASURED }, (_, i) => i);
    const { result, cpuPerTrigger } = await withCpu({ server }, MEASURED, () => bareLatencies(db, ids, RATE));
    return { latencies: result.seen.filter((latency) => !Number.isNaN(latency)), cpuPerTrigger };
  } finally {
    await db.dropDatabase();
  }
}

const p50p99 = (latencies: readonly number[]) =>
  `${ms(percentile(latencies, 0.5))} / ${ms(percentile(latencies, 0.99))}`;

/**
 * CPU per correction: the sidecar's per trigger, and the server's less the bare round's (the
 * writer's inserts and the observer's stream); the bench's writer and observer are the bare
 * round's, whose CPU a correction does not add to.
 */
function cpuPerCorrection(round: Round, bare: CpuPerTrigger): string {
  const { sidecar, server } = round.cpuPerTrigger;
  const serverLessBare = server === undefined || bare.server === undefined ? undefined : server - bare.server;
  return `${ms(sidecar)} / ${ms(serverLessBare)}`;
}

async function run(): Promise<string[]> {
  heading(`mixed live: ${count(MEASURED)} triggers at ${RATE}/s (2 sales : 2 trades : 1 product push)`);
  const server = process.env.MONGODB_URI ? undefined : await startServerProcess();
  const mongo = await startTestMongo({ uri: server?.uri });
  try {
    const bare = await bareRound(mongo, server);
    const mixed = await sidecarRound(mongo, server, MIX, WARM_UP, MEASURED);
    const all = [...mixed.seen.values()].flat();
    const bareP99 = percentile(bare.latencies, 0.99);
    const p99 = percentile(all, 0.99);
    const table: string[][] = [
      ["bare round: p50 / p99", p50p99(bare.latencies)],
      [
        "mix: p50 / p99; p99 / bare p99; never seen",
        `${p50p99(all)}; ${(p99 / bareP99).toFixed(2)}; ${mixed.missed}${p99 <= P99_GOAL_MS ? "" : " (goal NOT met)"}`,
      ],
    ];
    for (const [kind, latencies] of mixed.seen) table.push([`mix, ${kind}: p50 / p99`, p50p99(latencies)]);
    table.push(["mix: CPU per correction, sidecar / server", cpuPerCorrection(mixed, bare.cpuPerTrigger)]);
    for (const kind of ["sale", "trade", "review"] as const) {
      const alone = await sidecarRound(mongo, server, [kind], WARM_UP / 2, ALONE);
      table.push([
        `${kind} alone: p50 / p99; CPU per correction, sidecar / server`,
        `${p50p99([...alone.seen.values()].flat())}; ${cpuPerCorrection(alone, bare.cpuPerTrigger)}`,
      ]);
    }
    printTable(["measure", "value"], table);
    return table.map(([name, value]) => `${name}: ${value}`);
  } finally {
    await mongo.close();
    await server?.stop();
  }
}

export const mixedLive: Benchmark = {
  name: "mixed-live",
  description: "live latency of the mix of patterns at 200 triggers/s, per pattern, and CPU per correction",
  run,
};
