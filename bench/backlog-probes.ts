// What the backlog benchmark watches while the sidecar drains: server pings from another
// client, the leader flag and lease-loss logs of each sidecar, a bare change stream's drain
// rate, and how long after its write a trigger's correction becomes visible.
import { on } from "node:events";
import { Worker } from "node:worker_threads";
import type { ChangeStream, ChangeStreamDocument, Db, Document, MongoClient, Timestamp } from "mongodb";
import type { TestSidecar } from "../test/support/harness.js";
import { percentile, startClock } from "./measure.js";

const PING_INTERVAL_MS = 10;
const LEADER_SAMPLE_MS = 20;
const WAKE_UP_INTERVAL_MS = 10;

async function timedPing(client: MongoClient): Promise<number> {
  const elapsed = startClock();
  await client.db("admin").command({ ping: 1 });
  return elapsed();
}

export async function idlePingMs(client: MongoClient): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) samples.push(await timedPing(client));
  return percentile(samples, 0.5);
}

/** A sampler of bench/sampler-worker.mjs, in a worker thread of its own. */
async function startSampler(workerData: {
  kind: "ping" | "wake-up";
  uri?: string;
  intervalMs: number;
}): Promise<{ stop(): Promise<number[]> }> {
  const worker = new Worker(new URL("./sampler-worker.mjs", import.meta.url), { workerData });
  const messages = on(worker, "message");
  const next = async () => ((await messages.next()).value as unknown[])[0];
  if ((await next()) !== "ready") throw new Error(`bench: the ${workerData.kind} sampler did not start`);
  return {
    async stop() {
      worker.postMessage("stop");
      const samples = (await next()) as number[];
      await worker.terminate();
      return samples;
    },
  };
}

/**
 * Pings one after another (10 ms apart), from a worker thread, until stopped; returns every
 * latency.
 */
export function samplePings(uri: string): Promise<{ stop(): Promise<number[]> }> {
  return startSampler({ kind: "ping", uri, intervalMs: PING_INTERVAL_MS });
}

/**
 * How late an idle thread wakes up, from a worker thread, until stopped: the machine's own
 * stalls, in which every process waits for a core, whatever the sidecar does. Returns every
 * lateness, in ms.
 */
export function sampleWakeUps(): Promise<{ stop(): Promise<number[]> }> {
  return startSampler({ kind: "wake-up", intervalMs: WAKE_UP_INTERVAL_MS });
}

/** Counts the times `sidecar` stopped leading, by its status and by its logs. */
export function watchLeadership(sidecar: TestSidecar): { stop(): number } {
  let wasLeader = false;
  let drops = 0;
  const timer = setInterval(() => {
    const leader = sidecar.runner.status().leader;
    if (wasLeader && !leader) drops += 1;
    wasLeader = leader;
  }, LEADER_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const logged = sidecar.logs.filter(
        (line) =>
          line.msg === "lost the writer lease" ||
          line.msg === "writer lease not renewed; stopping corrections",
      ).length;
      return Math.max(drops, logged);
    },
  };
}

/** Commands run per trigger, by command name (serverStatus metrics.commands). */
export type CommandsPerTrigger = Map<string, number>;

/** How many times the server has run each command so far, by name. */
export async function commandTotals(db: Db): Promise<Map<string, number>> {
  const { metrics } = await db.client.db("admin").command({ serverStatus: 1 });
  const commands = (metrics as { commands?: Record<string, unknown> } | undefined)?.commands ?? {};
  return new Map(
    Object.entries(commands).flatMap(([name, counts]) => {
      const total = (counts as { total?: unknown } | undefined)?.total;
      return total === undefined ? [] : [[name, Number(total)]];
    }),
  );
}

/**
 * Runs `work`, which sends `triggers` triggers, and counts the commands the server ran
 * meanwhile, per trigger: the round trips a trigger cost, whatever the clock says. Other
 * clients' commands (a real replica set's own) count too, hence per trigger, not exact.
 */
export async function countingCommands<T>(
  db: Db,
  triggers: number,
  work: () => Promise<T>,
): Promise<{ result: T; commands: CommandsPerTrigger }> {
  const before = await commandTotals(db);
  const result = await work();
  const ran = commandsBetween(before, await commandTotals(db));
  const commands = new Map([...ran].map(([name, total]) => [name, total / triggers] as const));
  return { result, commands };
}

/** Commands per correction in all, then the six most frequent by name (`counts` by name, as commandsBetween gives them). */
export function commandsPerCorrection(counts: Map<string, number>, corrections: number): string {
  const most = [...counts].sort(([, a], [, b]) => b - a).slice(0, 6);
  const per = (total: number) => (total / corrections).toFixed(3);
  const all = [...counts.values()].reduce((sum, total) => sum + total, 0);
  return `${per(all)} (${most.map(([name, total]) => `${name} ${per(total)}`).join(", ")})`;
}

/**
 * The commands the server ran between two readings of commandTotals, by name, less the
 * readings' own `serverStatus`.
 */
export function commandsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> {
  return new Map(
    [...after]
      .filter(([name]) => name !== "serverStatus")
      .map(([name, total]) => [name, total - (before.get(name) ?? 0)] as const),
  );
}

/** Events a bare change stream (no pipeline, no lookup) reads from `from` up to the sentinel's. */
export async function rawDrain(
  db: Db,
  from: Timestamp,
  sentinelId: number,
): Promise<{ events: number; ms: number }> {
  const elapsed = startClock();
  const stream = db.watch<{ _id: number }>([], { startAtOperationTime: from });
  let events = 0;
  try {
    for await (const event of stream) {
      events += 1;
      if ("documentKey" in event && event.documentKey._id === sentinelId) break;
    }
  } finally {
    await stream.close();
  }
  return { events, ms: elapsed() };
}

/** What a timed trigger writes, and where and how its outcome is seen. */
export interface TriggerProbe {
  /** The change stream that shows each trigger's outcome. */
  observe(): ChangeStream;
  /** The trigger whose outcome an event of it shows, if any. */
  idOf(event: ChangeStreamDocument): number | undefined;
  trigger(id: number): Promise<unknown>;
}

/** A probe's observer of the inserts into one collection, each trigger's id from its document key. */
function insertsInto(db: Db, collection: string, idOf: (documentKey: Document) => number) {
  return {
    observe: () => db.collection(collection).watch([{ $match: { operationType: "insert" } }]),
    idOf: (event: ChangeStreamDocument) => ("documentKey" in event ? idOf(event.documentKey) : undefined),
  };
}

/**
 * Each trigger's times, at its index, in ms from sending its write: NaN where one was not
 * seen (in time, or at all: a server older than 6.0 sends no wallTime).
 */
export interface TriggerTimes {
  /** Until the observer saw the watched insert: the latency. */
  seen: number[];
  /** Until the write was acknowledged. */
  acknowledged: number[];
  /**
   * Until the watched insert committed, by its change event's wallTime: the server's clock,
   * the same as the bench's only when the server runs on the same machine.
   */
  committed: number[];
}

/**
 * Triggers `perSecond` corrections (one push into a full book each, in the order of
 * `bookIds`) and times each one, at its book's index: from sending the write to seeing the
 * overflow chunk the correction inserts.
 */
export function liveLatencies(db: Db, bookIds: readonly number[], perSecond: number): Promise<TriggerTimes> {
  return triggerLatencies(bookIds, perSecond, {
    // On the overflow collection alone: the server then builds no event of another collection
    // for it, and the bench's observer weighs on the server as little as it can.
    ...insertsInto(db, "extra_sales", (key) => (key._id as { book_id: number }).book_id),
    trigger: (id) =>
      db
        .collection<{ _id: number }>("sales")
        .updateOne({ _id: id }, { $push: { customers_purchased: "user50" } }),
  });
}

/** The collection of bareLatencies' inserts. */
const BARE_TRIGGERS = "bare_triggers";

/**
 * The baseline of liveLatencies, in the same run: the same writer and observer at the same
 * rate, with no correction between them; each write is an insert the observer sees itself.
 */
export function bareLatencies(db: Db, ids: readonly number[], perSecond: number): Promise<TriggerTimes> {
  return triggerLatencies(ids, perSecond, {
    ...insertsInto(db, BARE_TRIGGERS, (key) => key._id as number),
    trigger: (id) => db.collection<{ _id: number }>(BARE_TRIGGERS).insertOne({ _id: id }),
  });
}

/** Sends `probe`'s triggers at `perSecond` and times each one (TriggerTimes). */
export async function triggerLatencies(
  ids: readonly number[],
  perSecond: number,
  probe: TriggerProbe,
): Promise<TriggerTimes> {
  const sentAt = ids.map(() => Number.NaN);
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  const times: TriggerTimes = {
    seen: ids.map(() => Number.NaN),
    acknowledged: ids.map(() => Number.NaN),
    committed: ids.map(() => Number.NaN),
  };
  let seenCount = 0;
  const observer = probe.observe();
  const seen = (async () => {
    for await (const event of observer) {
      const id = probe.idOf(event);
      const index = id === undefined ? undefined : indexOf.get(id);
      if (index === undefined || Number.isNaN(sentAt[index]!) || !Number.isNaN(times.seen[index]!)) continue;
      times.seen[index] = performance.now() - sentAt[index]!;
      const wallTime = "wallTime" in event ? event.wallTime : undefined;
      if (wallTime) times.committed[index] = wallTime.getTime() - (performance.timeOrigin + sentAt[index]!);
      if (++seenCount === ids.length) break;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const start = performance.now();
  await Promise.all(
    ids.map(async (id, i) => {
      const due = start + (i * 1000) / perSecond;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      sentAt[i] = performance.now();
      await probe.trigger(id);
      times.acknowledged[i] = performance.now() - sentAt[i];
    }),
  );
  await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  await observer.close();
  return times;
}
