// The mixed backlog drained by N = 1, 2 and 4 replicas (CLI processes) started together
// (issue 36): each one's share of the events and corrections, CPU per correction against
// N = 1, the server's CPU, wall time beside a bare `db.watch()`. docs/benchmarks.md, "replicas".
import { availableParallelism, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "mongodb";
import { waitUntil } from "../src/cli/wait-until.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { startClock } from "./measure.js";
import { MIXED_CYCLE, prepareMixedBacklog, SIDECAR_SETTINGS } from "./mixed-backlog.js";
import { verifyMixedCorrected } from "./mixed-load.js";
import { commandsBetween, commandsPerCorrection, commandTotals } from "./backlog-probes.js";
import { processWakeUps } from "../test/support/wake-ups.js";
import { mainThreadCpuMs, processCpuMs } from "./process-cpu.js";
import {
  activeCpuPerCorrectionMs,
  fitLine,
  projectedDrainMs,
  replicaShares,
  type DrainModel,
  type ReplicaCounts,
} from "./replica-shares.js";
import { count, heading, ms, percent, printTable, ratio } from "./report.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { parseReplicaRun, replicaRunName, throttleProcess, type ReplicaRun } from "./server-throttle.js";
import { buildOnce, metricSum, startSidecarProcess, type SidecarProcess } from "./sidecar-process.js";

/**
 * REPLICAS=<n,...> drains with those counts only (the first is the baseline the others are set
 * against); `1@33%` drains with one replica while the server runs a third of the time
 * (server-throttle.ts). Read when this bench runs: a malformed value stops no other bench.
 */
const replicaRuns = () => (process.env.REPLICAS ?? "1,2,4").split(",").map(parseReplicaRun);
/**
 * Writes of the backlog: fifteen times mixed-backlog's (60,000 corrections), so that the
 * costs each process pays once (its first partitions, V8 compiling its hot code, its heap
 * growing) weigh on a drain as little as on a replica that runs for days: with 100,000
 * writes, N = 4's CPU per correction over the whole drain, less idling, was 1.45x N = 1's
 * where with 300,000 it was 1.21x.
 */
const EVENTS = 300_000;
/** The change events the server keeps: each round's documents, backlog and corrections (about 600,000), and more. */
const CHANGE_HISTORY = 1_600_000;
/** The config's default, named so that the bench can tell when all are owned. */
const PARTITIONS = 16;
const BOOT_TIMEOUT_MS = 60_000;
/**
 * How long N replicas may take to drain the backlog: N = 4 took 108 s on a slow day of this
 * 2-core machine (the server, scanning a stream per replica, sets the pace), past the 120 s of
 * the mixed backlog's single sidecar.
 */
const REPLICAS_DRAIN_TIMEOUT_MS = 600_000;
/**
 * How often the bench scrapes each replica's /metrics while it drains. A scrape costs a replica
 * about 1.6 ms of CPU, which the idle share (measured unscraped) does not take away: every
 * 200 ms, as before, that was 8 ms a second, 27 µs per correction at N = 4 and 3 at N = 1.
 * Prometheus scrapes every 15 to 60 s.
 */
const SCRAPE_MS = 1000;
/** How long the replicas idle after the drain, for their CPU at rest (heartbeats, lease rounds, empty getMores). */
const IDLE_MS = 3_000;
/** The goals: CPU per correction against one replica's, and corrections max/min. */
const CPU_GOAL = 1.25;
const SPREAD_GOAL = 1.5;
/** The machine the model's figure is for. */
const MODEL_CORES = 16;

interface Scrape {
  eventsReceived: number;
  corrections: number;
  partitionsOwned: number;
  /** Errors it counted (errors_total), of every kind. */
  errors: number;
  /** Seconds its V8 spent collecting garbage, every kind (prom-client's nodejs_gc_duration_seconds). */
  gcSeconds: number;
}

/** The replicas' counters, their processes' CPU and the server's at one moment (ms from the spawn). */
interface Snapshot {
  at: number;
  scrapes: Scrape[];
  cpu: (number | undefined)[];
  /** Each replica's main thread's CPU (mainThreadCpuMs). */
  mainCpu: (number | undefined)[];
  /** Each replica's wake-ups so far (processWakeUps). */
  wakeUps: (number | undefined)[];
  serverCpu: number | undefined;
  /** How many times the server had run each command (serverStatus), by name. */
  commands: Map<string, number>;
}

/** What the replicas and the server did between two snapshots. */
interface Phase {
  ms: number;
  replicas: ReplicaCounts[];
  serverCpuMs: number | undefined;
  /** The commands the server ran, by name (the bench's own serverStatus left out). */
  commands: Map<string, number>;
  /** The replicas' garbage collections, summed, in ms. */
  gcMs: number;
  /** The replicas' wake-ups (processWakeUps), summed. */
  wakeUps: number | undefined;
  /** The replicas' CPU outside their main threads, summed, in ms. */
  helperThreadsMs: number | undefined;
}

interface ReplicaDrain extends ReplicaRun {
  /** The corrections the backlog needs: one per trigger and the sentinel's. */
  expected: number;
  /** From spawning the replicas until every one's endpoints answer. */
  bootMs: number;
  /** From each replica's boot until all is corrected (ms: from the spawn). */
  whole: Phase;
  /** From the first scrape that found the partitions spread over all (counts differing by at most one) until all is corrected; none when the drain ended first. */
  shared: Phase | undefined;
  /** When the partitions were spread, from the spawn. */
  sharedAt: number;
  /**
   * From the scrape that found half the corrections made until all are: each replica then
   * warm (its code compiled by V8's optimizing tiers), as replicas that run for days are.
   */
  secondHalf: Phase;
  end: Scrape[];
  /** The most partitions the replicas reported owning at one scrape (more than PARTITIONS: owned twice). */
  mostOwned: number;
  idle: IdleShares;
  bare: { events: number; ms: number };
}

/** The share of a core each replica and the server took while the replicas idled after the drain. */
interface IdleShares {
  replicas: (number | undefined)[];
  server: number | undefined;
}

async function scrape(sidecar: SidecarProcess): Promise<Scrape> {
  const text = await sidecar.metrics();
  return {
    eventsReceived: metricSum(text, "pattern_sidecar_change_events_received_total"),
    corrections: metricSum(text, "pattern_sidecar_corrections_total"),
    partitionsOwned: metricSum(text, "pattern_sidecar_partitions_owned"),
    errors: metricSum(text, "pattern_sidecar_errors_total"),
    gcSeconds: metricSum(text, "nodejs_gc_duration_seconds_sum"),
  };
}

const sumOf = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

function evenlyShared(owned: readonly number[]): boolean {
  return sumOf(owned) === PARTITIONS && Math.max(...owned) - Math.min(...owned) <= 1;
}

/** The sum, or undefined where a part is. */
const totalOf = (values: readonly (number | undefined)[]) =>
  values.includes(undefined) ? undefined : sumOf(values as number[]);

const difference = (after: number | undefined, before: number | undefined) =>
  after === undefined || before === undefined ? undefined : after - before;

function phase(from: Snapshot, to: Snapshot): Phase {
  return {
    ms: to.at - from.at,
    replicas: to.scrapes.map((counts, i) => ({
      eventsReceived: counts.eventsReceived - from.scrapes[i]!.eventsReceived,
      corrections: counts.corrections - from.scrapes[i]!.corrections,
      cpuMs: difference(to.cpu[i], from.cpu[i]),
    })),
    serverCpuMs: difference(to.serverCpu, from.serverCpu),
    gcMs: 1000 * sumOf(to.scrapes.map((counts, i) => counts.gcSeconds - from.scrapes[i]!.gcSeconds)),
    wakeUps: totalOf(to.wakeUps.map((wakeUps, i) => difference(wakeUps, from.wakeUps[i]))),
    helperThreadsMs: totalOf(
      to.cpu.map((cpu, i) =>
        difference(difference(cpu, from.cpu[i]), difference(to.mainCpu[i], from.mainCpu[i])),
      ),
    ),
    commands: commandsBetween(from.commands, to.commands),
  };
}

async function drainByReplicas(
  uri: string,
  mongo: TestMongo,
  server: ServerProcess | undefined,
  run: ReplicaRun,
): Promise<ReplicaDrain> {
  const db = mongo.client.db(uniqueDatabaseName("bench_replicas"));
  try {
    const { triggers, triggerTotal, raw } = await prepareMixedBacklog(mongo, db, MIXED_CYCLE, EVENTS);
    const drain = await runReplicas(uri, db, server, run, triggerTotal + 1);
    await verifyMixedCorrected(db, triggers);
    return { ...drain, bare: raw };
  } finally {
    await db.dropDatabase();
  }
}

/** Spawns `replicas` sidecars at once, scrapes them until every correction is made and the partitions are spread, then lets them idle. */
async function runReplicas(
  uri: string,
  db: Db,
  server: ServerProcess | undefined,
  run: ReplicaRun,
  expected: number,
): Promise<Omit<ReplicaDrain, "bare">> {
  const config = { database: db.databaseName, partitions: PARTITIONS, ...SIDECAR_SETTINGS };
  const elapsed = startClock();
  const serverAtSpawn = { cpu: processCpuMs(server?.pid), commands: await commandTotals(db) };
  const sidecars = await Promise.all(
    Array.from({ length: run.replicas }, () => startSidecarProcess(uri, config)),
  );
  const unthrottle = throttleProcess(server?.pid, run.serverShare);
  try {
    const booted = await bootOf(sidecars, serverAtSpawn);
    const bootMs = elapsed();
    const watched = await watchDrain(db, sidecars, server, expected, elapsed);
    const { drained, shared, half } = watched;
    // Before the idle shares below, which are each process's own at rest, not the throttle's.
    unthrottle();
    return {
      ...run,
      expected,
      bootMs,
      whole: phase(booted, drained),
      shared: shared.at < drained.at ? phase(shared, drained) : undefined,
      sharedAt: shared.at,
      secondHalf: phase(half, drained),
      end: drained.scrapes,
      mostOwned: watched.mostOwned,
      idle: await idleShares(sidecars, server),
    };
  } finally {
    unthrottle();
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  }
}

/**
 * The replicas at their boot: a replica's CPU and garbage collections count from its
 * endpoints' first answer (its boot, tsx compiling, is not the drain's), the server's from
 * the spawn.
 */
async function bootOf(
  sidecars: readonly SidecarProcess[],
  server: { cpu: number | undefined; commands: Map<string, number> },
): Promise<Snapshot> {
  const booted = await Promise.all(
    sidecars.map(async (sidecar) => {
      await sidecar.waitForEndpoints(BOOT_TIMEOUT_MS);
      // Its collections while it booted are not the drain's either.
      const { gcSeconds } = await scrape(sidecar);
      return { ...cpuAndWakeUps(sidecar), gcSeconds };
    }),
  );
  const atBoot = (gcSeconds: number) => ({
    eventsReceived: 0,
    corrections: 0,
    partitionsOwned: 0,
    errors: 0,
    gcSeconds,
  });
  return {
    at: 0,
    scrapes: booted.map(({ gcSeconds }) => atBoot(gcSeconds)),
    cpu: booted.map(({ cpu }) => cpu),
    mainCpu: booted.map(({ mainCpu }) => mainCpu),
    wakeUps: booted.map(({ wakeUps }) => wakeUps),
    serverCpu: server.cpu,
    commands: server.commands,
  };
}

/** A replica's CPU so far (all its threads', its main thread's) and its wake-ups. */
const cpuAndWakeUps = ({ pid }: SidecarProcess) => ({
  cpu: processCpuMs(pid),
  mainCpu: mainThreadCpuMs(pid),
  wakeUps: processWakeUps(pid),
});

/** Scrapes the replicas until they made `expected` corrections and spread the partitions; snapshots of those moments and of half the corrections. */
async function watchDrain(
  db: Db,
  sidecars: readonly SidecarProcess[],
  server: ServerProcess | undefined,
  expected: number,
  elapsed: () => number,
): Promise<{ drained: Snapshot; shared: Snapshot; half: Snapshot; mostOwned: number }> {
  const snapshot = async (scrapes: Scrape[]): Promise<Snapshot> => {
    const counts = sidecars.map(cpuAndWakeUps);
    return {
      at: elapsed(),
      scrapes,
      cpu: counts.map(({ cpu }) => cpu),
      mainCpu: counts.map(({ mainCpu }) => mainCpu),
      wakeUps: counts.map(({ wakeUps }) => wakeUps),
      serverCpu: processCpuMs(server?.pid),
      commands: await commandTotals(db),
    };
  };
  let drained: Snapshot | undefined;
  let shared: Snapshot | undefined;
  let half: Snapshot | undefined;
  let mostOwned = 0;
  let progress = "no scrape answered";
  await waitUntil(
    async () => {
      const scrapes = await Promise.all(sidecars.map(scrape));
      const owned = scrapes.map((counts) => counts.partitionsOwned);
      mostOwned = Math.max(mostOwned, sumOf(owned));
      if (shared === undefined && evenlyShared(owned)) shared = await snapshot(scrapes);
      const corrections = sumOf(scrapes.map((counts) => counts.corrections));
      progress = `${corrections} corrections made, partitions owned ${owned.join(", ")}`;
      if (half === undefined && corrections >= expected / 2) half = await snapshot(scrapes);
      if (drained === undefined && corrections >= expected) drained = await snapshot(scrapes);
      return drained !== undefined && shared !== undefined;
    },
    { timeoutMs: REPLICAS_DRAIN_TIMEOUT_MS, intervalMs: SCRAPE_MS },
  ).catch((error: unknown) => {
    const waited = `${sidecars.length} replicas to make ${expected} corrections and share ${PARTITIONS} partitions`;
    throw new Error(`${waited}: not done in ${ms(REPLICAS_DRAIN_TIMEOUT_MS)} (last scrape: ${progress})`, {
      cause: error,
    });
  });
  return { drained: drained!, shared: shared!, half: half!, mostOwned };
}

/** The share of a core each replica and the server take while the replicas idle, caught up and unscraped. */
async function idleShares(
  sidecars: readonly SidecarProcess[],
  server: ServerProcess | undefined,
): Promise<IdleShares> {
  const cpu = () => ({
    replicas: sidecars.map((sidecar) => processCpuMs(sidecar.pid)),
    server: processCpuMs(server?.pid),
  });
  const before = cpu();
  const elapsed = startClock();
  await sleep(IDLE_MS);
  const after = cpu();
  const share = (a: number | undefined, b: number | undefined) => {
    const used = difference(a, b);
    return used === undefined ? undefined : used / elapsed();
  };
  return {
    replicas: after.replicas.map((ms, i) => share(ms, before.replicas[i])),
    server: share(after.server, before.server),
  };
}

/** One replica's events as a share of one replica's stream over as many corrections. */
type StreamEvents = (corrections: number) => number;

function replicaRows(drain: ReplicaDrain, stream: StreamEvents): string[][] {
  const wholeCorrections = sumOf(drain.whole.replicas.map((counts) => counts.corrections));
  const sharedCorrections = sumOf(drain.shared?.replicas.map((counts) => counts.corrections) ?? []);
  return drain.end.map((end, i) => {
    const whole = drain.whole.replicas[i]!;
    const shared = drain.shared?.replicas[i];
    const events = (counts: ReplicaCounts | undefined, corrections: number) =>
      counts
        ? `${count(counts.eventsReceived)} (${percent(counts.eventsReceived, stream(corrections))})`
        : "-";
    return [
      `${replicaRunName(drain)} replica ${i + 1}`,
      String(end.partitionsOwned),
      events(whole, wholeCorrections),
      count(whole.corrections),
      ms(whole.cpuMs),
      events(shared, sharedCorrections),
      shared ? count(shared.corrections) : "-",
      ms(shared?.cpuMs),
      count(end.errors),
    ];
  });
}

const goal = (met: boolean) => (met ? "" : " (goal NOT met)");

/** A phase of a drain and the share of a core each of its replicas takes idle. */
interface Measured {
  phase: Phase;
  idle: IdleShares;
}

const activeCpu = ({ phase, idle }: Measured) =>
  activeCpuPerCorrectionMs(phase.replicas, idle.replicas, phase.ms);

const against = (value: number | undefined, baseline: number | undefined) => {
  const ratio = value === undefined || baseline === undefined ? undefined : value / baseline;
  return `${ratio?.toFixed(2) ?? "-"}x N=1's${goal(ratio === undefined || ratio <= CPU_GOAL)}`;
};

/** A phase's shares, corrections max/min and CPU per correction (all of it, and less idling) against N = 1's. */
function phaseLine(label: string, current: Measured, baseline: Measured, stream: StreamEvents): string {
  const { phase } = current;
  const corrections = sumOf(phase.replicas.map((counts) => counts.corrections));
  const shares = replicaShares(phase.replicas, stream(corrections));
  const cpu = shares.cpuPerCorrectionMs;
  const spread = shares.correctionsMaxOverMin;
  const perCorrection = (total: number | undefined) =>
    total === undefined ? undefined : total / corrections;
  const serverPerCorrection = perCorrection(phase.serverCpuMs);
  return (
    `${label} (${ms(phase.ms)}, ${count(corrections)} corrections): events per replica ` +
    `${shares.eventShares.map((share) => percent(share, 1)).join(", ")} of the stream; ` +
    `corrections max/min ${spread.toFixed(2)}${goal(spread <= SPREAD_GOAL)}; ` +
    `replicas' CPU per correction ${ms(cpu)}, ${against(cpu, replicaShares(baseline.phase.replicas, 1).cpuPerCorrectionMs)}; ` +
    `less idling ${ms(activeCpu(current))}, ${against(activeCpu(current), activeCpu(baseline))}; ` +
    `per event received ${ms(shares.cpuPerEventMs)}; outside the main threads ${ms(perCorrection(phase.helperThreadsMs))} per correction; garbage collection ${ms(phase.gcMs / corrections)} per correction; ` +
    `event-loop wake-ups ${phase.wakeUps === undefined ? "-" : (phase.wakeUps / corrections).toFixed(2)} per correction; server CPU ${ms(phase.serverCpuMs)} (${ms(serverPerCorrection)} per correction); ` +
    `commands per correction ${commandsPerCorrection(phase.commands, corrections)}`
  );
}

const share = (value: number | undefined) => (value === undefined ? "-" : percent(value, 1));

function summaryLines(drain: ReplicaDrain, baseline: ReplicaDrain, stream: StreamEvents): string[] {
  const n = replicaRunName(drain);
  const line = (label: string, phase: Phase, baselinePhase: Phase) =>
    phaseLine(
      `${n} ${label}`,
      { phase, idle: drain.idle },
      { phase: baselinePhase, idle: baseline.idle },
      stream,
    );
  const lines = [
    `${n}: wall ${ms(drain.whole.ms)} from spawn (boot ${ms(drain.bootMs)}, partitions spread at ${ms(drain.sharedAt)}); ` +
      `bare db.watch() of the same backlog ${ms(drain.bare.ms)} (${count(drain.bare.events)} events), ${ratio(drain.whole.ms, drain.bare.ms)}; ` +
      `idle after it, each replica ${drain.idle.replicas.map(share).join(", ")} of a core, the server ${share(drain.idle.server)}` +
      (drain.mostOwned > PARTITIONS ? `; ${drain.mostOwned} partitions owned at once (OWNED TWICE)` : ""),
    line("whole drain", drain.whole, baseline.whole),
  ];
  if (drain.shared && baseline.shared) lines.push(line("once spread", drain.shared, baseline.shared));
  else lines.push(`${n}: drained before the partitions were spread over the replicas`);
  lines.push(line("second half", drain.secondHalf, baseline.secondHalf));
  return lines;
}

/** The model's inputs, once spread: the replicas' CPU per correction less idling (mean over N), their idle share, the server's line over N. */
function drainModel(allDrains: readonly ReplicaDrain[]): DrainModel | undefined {
  // A throttled server's CPU per correction is not the line's: it ran slower by design.
  const drains = allDrains.filter((drain) => drain.serverShare === undefined);
  if (drains.length === 0) return undefined;
  if (drains.some((drain) => drain.shared === undefined)) return undefined;
  const perCorrection = drains.map((drain) => activeCpu({ phase: drain.shared!, idle: drain.idle }));
  const idle = drains.flatMap((drain) => drain.idle.replicas);
  const serverPerCorrection = drains.map(({ shared }) => {
    const corrections = sumOf(shared!.replicas.map((counts) => counts.corrections));
    return shared!.serverCpuMs === undefined ? undefined : shared!.serverCpuMs / corrections;
  });
  if ([...perCorrection, ...idle, ...serverPerCorrection].includes(undefined)) return undefined;
  // Per correction, so that phases of different lengths compare: the whole backlog's corrections scale it back.
  const corrections = drains[0]!.expected;
  const line = fitLine(
    drains.map((drain, i) => [drain.replicas, serverPerCorrection[i]! * corrections] as const),
  );
  return {
    corrections,
    replicaCpuPerCorrectionMs: sumOf(perCorrection as number[]) / drains.length,
    replicaIdleShare: sumOf(idle as number[]) / idle.length,
    serverFixedMs: line.intercept,
    serverPerStreamMs: line.slope,
  };
}

function modelLine(model: DrainModel | undefined): string {
  if (!model) return "model: no CPU figures (not Linux, MONGODB_URI given, or every server throttled)";
  const projected = [1, 2, 4, 8].map((n) => `N=${n} ${ms(projectedDrainMs(model, MODEL_CORES, n))}`);
  return (
    `model: replicas ${ms(model.replicaCpuPerCorrectionMs)} CPU per correction less idling, ` +
    `${percent(model.replicaIdleShare, 1)} of a core each idle; server ${ms(model.serverFixedMs)} ` +
    `+ ${ms(model.serverPerStreamMs)} per stream for the ${count(model.corrections)} corrections; ` +
    `CPU-bound drain on ${MODEL_CORES} cores: ${projected.join(", ")}`
  );
}

async function run(): Promise<string[]> {
  const runs = replicaRuns();
  if (process.env.MONGODB_URI && runs.some((run) => run.serverShare !== undefined))
    throw new Error(
      `REPLICAS: "${process.env.REPLICAS}" throttles the server, which only the embedded server's own process allows; unset MONGODB_URI or drop the "@" entries`,
    );
  heading(
    `replicas: a mixed backlog of ${count(EVENTS)} writes drained by ${runs.map(replicaRunName).join(", ")} replicas started together`,
  );
  const loadBefore = loadavg()[0]!;
  // Before any clock starts: the first replica's wall time from its spawn would count it.
  await buildOnce();
  const drains: ReplicaDrain[] = [];
  for (const replicaRun of runs)
    drains.push(await onFreshServer((uri, mongo, server) => drainByReplicas(uri, mongo, server, replicaRun)));
  console.log("verified: every trigger corrected, no element lost or duplicated");
  const baseline = drains[0]!;
  const perCorrection =
    sumOf(baseline.whole.replicas.map((counts) => counts.eventsReceived)) /
    sumOf(baseline.whole.replicas.map((counts) => counts.corrections));
  const stream: StreamEvents = (corrections) => corrections * perCorrection;
  printTable(
    [
      "replica",
      "partitions",
      "events (of stream)",
      "corrections",
      "CPU",
      "once spread: events",
      "corrections",
      "CPU",
      "errors",
    ],
    drains.flatMap((drain) => replicaRows(drain, stream)),
  );
  const lines = [
    ...drains.flatMap((drain) => summaryLines(drain, baseline, stream)),
    modelLine(drainModel(drains)),
    `load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after, on ${availableParallelism()} cores (on 2, wall time cannot scale with N)`,
  ];
  for (const line of lines) console.log(line);
  return lines;
}

/**
 * `work` against a server of its own: without MONGODB_URI, a new embedded server process, as
 * mongod would run beside the replicas. One server for every N kept each N's backlog and
 * corrections in its heap for the next, and the same bare drain took 6.1, 9.1 and 12.6 s at
 * N = 1, 2 and 4: each N then measured a slower server than the one before.
 */
async function onFreshServer<T>(
  work: (uri: string, mongo: TestMongo, server: ServerProcess | undefined) => Promise<T>,
): Promise<T> {
  const server = process.env.MONGODB_URI
    ? undefined
    : await startServerProcess({ changeHistory: CHANGE_HISTORY });
  const uri = server?.uri ?? process.env.MONGODB_URI!;
  const mongo = await startTestMongo({ uri });
  try {
    return await work(uri, mongo, server);
  } finally {
    await mongo.close();
    await server?.stop();
  }
}

export const replicas: Benchmark = {
  name: "replicas",
  description: "the mixed backlog drained by N = 1, 2 and 4 replica processes sharing the partitions",
  run,
};
