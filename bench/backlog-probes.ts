// What the backlog benchmark watches while the sidecar drains: server pings from another
// client, the leader flag and lease-loss logs of each sidecar, a bare change stream's drain
// rate, and how long after its write a trigger's correction becomes visible.
import { on } from "node:events";
import { Worker } from "node:worker_threads";
import type { Db, MongoClient, Timestamp } from "mongodb";
import type { TestSidecar } from "../test/integration/sidecar/harness.js";
import { startClock } from "./measure.js";

const PING_INTERVAL_MS = 10;
const LEADER_SAMPLE_MS = 20;

export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

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

/**
 * Pings one after another (10 ms apart), from a worker thread (bench/ping-worker.mjs), until
 * stopped; returns every latency.
 */
export async function samplePings(uri: string): Promise<{ stop(): Promise<number[]> }> {
  const worker = new Worker(new URL("./ping-worker.mjs", import.meta.url), {
    workerData: { uri, intervalMs: PING_INTERVAL_MS },
  });
  const messages = on(worker, "message");
  const next = async () => ((await messages.next()).value as unknown[])[0];
  if ((await next()) !== "ready") throw new Error("bench: the ping worker did not start");
  return {
    async stop() {
      worker.postMessage("stop");
      const samples = (await next()) as number[];
      await worker.terminate();
      return samples;
    },
  };
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

/**
 * Triggers `perSecond` corrections (one push into a full book each, in the order of
 * `bookIds`) and returns each one's latency, at its book's index: from sending the write to
 * seeing the overflow chunk the correction inserts; NaN for a correction not seen in time.
 */
export async function liveLatencies(
  db: Db,
  bookIds: readonly number[],
  perSecond: number,
): Promise<number[]> {
  const sentAt = new Map<number, number>();
  const indexOf = new Map(bookIds.map((id, i) => [id, i]));
  const latencies = bookIds.map(() => Number.NaN);
  let seenCount = 0;
  // On the overflow collection alone: the server then builds no event of another collection
  // for it, and the bench's observer weighs on the server as little as it can.
  const observer = db
    .collection("extra_sales")
    .watch<{ _id: { book_id: number } }>([{ $match: { operationType: "insert" } }]);
  const seen = (async () => {
    for await (const event of observer) {
      const book = "documentKey" in event ? event.documentKey._id.book_id : -1;
      const sent = sentAt.get(book);
      const index = indexOf.get(book);
      if (sent === undefined || index === undefined || !Number.isNaN(latencies[index])) continue;
      latencies[index] = performance.now() - sent;
      if (++seenCount === bookIds.length) break;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const start = performance.now();
  await Promise.all(
    bookIds.map(async (id, i) => {
      const due = start + (i * 1000) / perSecond;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      sentAt.set(id, performance.now());
      await db
        .collection<{ _id: number }>("sales")
        .updateOne({ _id: id }, { $push: { customers_purchased: "user50" } });
    }),
  );
  await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  await observer.close();
  return latencies;
}
