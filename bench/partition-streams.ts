// One mixed backlog read by the change stream of each partition, for N = 1, 2 and 4 partitions:
// how many events each stream receives (goal: about 1/N, docs/semantics.md "Partitions"), and
// what each stream costs the server (its $match hashes every event's keys) and the reader.
// Each stream is drained alone, from the backlog's start to a sentinel, on the embedded
// server in a process of its own (server-process.ts).
import { MongoClient, type Db, type Document, type Timestamp } from "mongodb";
import { configSchema, type Config } from "../src/config/schema.js";
import type { ProjectedChangeEvent } from "../src/stream/events/targets.js";
import { buildWatchPipeline, watchOptions } from "../src/stream/events/watch-pipeline.js";
import type { OwnedPartitions } from "../src/stream/partitions/partition-filter.js";
import { currentClusterTime } from "../src/stream/position/cluster-time.js";
import type { Benchmark } from "./benchmark.js";
import { startClock } from "./measure.js";
import { ownCpuMs, processCpuMs } from "./process-cpu.js";
import { count, heading, ms, percent, printTable, ratio } from "./report.js";
import { startServerProcess } from "./server-process.js";

/** Writes of each pattern's kind: a book past its threshold, a loose trade, a product's reviews past theirs. */
const WRITES_PER_PATTERN = 10_000;
const PARTITION_COUNTS = [1, 2, 4];
const SENTINEL = "bench_sentinel";
const INSERT_BATCH = 500;

const { rules } = configSchema.parse({}) as Config;

const entries = (n: number, label: string) => Array.from({ length: n }, (_, i) => `${label}${i}`);

async function insertInBatches(db: Db, collection: string, make: (i: number) => Document): Promise<void> {
  for (let start = 0; start < WRITES_PER_PATTERN; start += INSERT_BATCH) {
    const batch = Array.from({ length: INSERT_BATCH }, (_, i) => make(start + i));
    await db.collection(collection).insertMany(batch);
  }
}

async function writeBacklog(db: Db): Promise<void> {
  await insertInBatches(db, "sales", (i) => ({ _id: i, customers_purchased: entries(51, "c") }));
  await insertInBatches(db, "trades", (i) => ({
    customerId: i % 2_000,
    ticker: `T${i}`,
    date: new Date(1_700_000_000_000 + i * 1000),
  }));
  await insertInBatches(db, "products", (i) => ({ _id: i, reviews: entries(11, "r") }));
  await db.createCollection(SENTINEL);
  await db.collection(SENTINEL).drop();
}

interface Drain {
  partitions: number;
  partition: number;
  events: number;
  wallMs: number;
  serverCpuMs: number | undefined;
  readerCpuMs: number;
}

async function drain(
  db: Db,
  start: Timestamp,
  serverPid: number | undefined,
  owned: OwnedPartitions,
): Promise<Drain> {
  const stream = db.watch<Document, ProjectedChangeEvent>(buildWatchPipeline(rules, "full", [], owned), {
    ...watchOptions(rules),
    startAtOperationTime: start,
  });
  const serverBefore = processCpuMs(serverPid);
  const readerBefore = ownCpuMs();
  const elapsed = startClock();
  let events = 0;
  try {
    for (;;) {
      const event = await stream.next();
      if (event.operationType === "drop" && event.ns?.coll === SENTINEL) break;
      events++;
    }
  } finally {
    await stream.close();
  }
  const serverAfter = processCpuMs(serverPid);
  return {
    partitions: owned.count,
    partition: owned.owned[0]!,
    events,
    wallMs: elapsed(),
    serverCpuMs:
      serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
    readerCpuMs: ownCpuMs() - readerBefore,
  };
}

const sum = (drains: readonly Drain[], field: "serverCpuMs" | "readerCpuMs" | "events") =>
  drains.reduce((total, drain) => total + (drain[field] ?? 0), 0);

function summarise(drains: readonly Drain[]): string[] {
  const baseline = drains.filter((drain) => drain.partitions === 1);
  return PARTITION_COUNTS.filter((n) => n > 1).map((n) => {
    const streams = drains.filter((drain) => drain.partitions === n);
    const shares = streams.map((drain) => drain.events / sum(baseline, "events"));
    return (
      `N=${n}: each stream received ${shares.map((share) => percent(share, 1)).join(", ")} of the events ` +
      `(1/N = ${percent(1 / n, 1)}); server CPU of the ${n} streams ${ratio(sum(streams, "serverCpuMs"), sum(baseline, "serverCpuMs"))} ` +
      `one unfiltered stream's (${ms(sum(streams, "serverCpuMs"))} vs ${ms(sum(baseline, "serverCpuMs"))}), ` +
      `reader CPU ${ratio(sum(streams, "readerCpuMs"), sum(baseline, "readerCpuMs"))} (${ms(sum(streams, "readerCpuMs"))} vs ${ms(sum(baseline, "readerCpuMs"))})`
    );
  });
}

async function run(): Promise<string[]> {
  heading(`partition-streams: ${count(3 * WRITES_PER_PATTERN)} events, read by each partition's stream`);
  const server = await startServerProcess();
  const client = await new MongoClient(server.uri).connect();
  try {
    const db = client.db("bench_partition_streams");
    const start = await currentClusterTime(db);
    await writeBacklog(db);
    // An untimed drain first, so that the first timed one does not pay for JIT and warm-up.
    await drain(db, start, server.pid, { count: 1, owned: [0] });
    const drains: Drain[] = [];
    for (const n of PARTITION_COUNTS)
      for (let partition = 0; partition < n; partition++)
        drains.push(await drain(db, start, server.pid, { count: n, owned: [partition] }));
    printTable(
      ["N", "partition", "events", "wall", "server CPU", "reader CPU"],
      drains.map((drain) => [
        String(drain.partitions),
        String(drain.partition),
        count(drain.events),
        ms(drain.wallMs),
        ms(drain.serverCpuMs),
        ms(drain.readerCpuMs),
      ]),
    );
    return summarise(drains);
  } finally {
    await client.close();
    await server.stop();
  }
}

export const partitionStreams: Benchmark = {
  name: "partition-streams",
  description: "a mixed backlog read by each partition's filtered change stream, for N = 1, 2 and 4",
  run,
};
