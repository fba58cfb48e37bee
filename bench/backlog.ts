// The sidecar under load, against one server (embedded, or MONGODB_URI): a backlog written
// while no sidecar ran, drained by a bare change stream and by the sidecar (no event needing
// a correction, then one in five), the server's ping latency while the sidecar drains, lease
// losses, and live correction latency at 20 and 200 triggers per second.
import type { Db } from "mongodb";
import { waitUntil } from "../src/cli/wait-until.js";
import { currentClusterTime } from "../src/stream/cluster-time.js";
import {
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type TestSidecar,
} from "../test/integration/sidecar/harness.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import {
  insertFullBooks,
  insertSmallBooks,
  pushSentinel,
  verifyCorrectedBooks,
  waitForAllCorrected,
  writeBacklog,
} from "./backlog-load.js";
import {
  idlePingMs,
  liveLatencies,
  percentile,
  rawDrain,
  samplePings,
  watchLeadership,
} from "./backlog-probes.js";
import { startClock } from "./measure.js";
import { count, heading, ms, perSecond, printTable } from "./report.js";

const PLAIN_EVENTS = 50_000;
const CORRECTING_EVENTS = 20_000;
const CORRECT_EVERY = 5;
const LIVE_SECONDS = 3;
const LIVE_RATES = [20, 200];
const DRAIN_TIMEOUT_MS = 60_000;

interface Drain {
  events: number;
  rawMs: number;
  /** From the drain's start until the sidecar streams (lease, stored position); not in sidecarMs. */
  startupMs: number;
  sidecarMs: number | undefined;
  pings: number[];
  leaseLosses: number;
}

/** Writes a backlog while no sidecar runs, drains it bare, then with a fresh sidecar. */
async function drainBacklog(
  mongo: TestMongo,
  db: Db,
  events: number,
  correcting: readonly number[],
  sentinel: number,
): Promise<{ drain: Drain; sidecar: TestSidecar }> {
  const from = await currentClusterTime(db);
  await writeBacklog(db, events, correcting, correcting.length > 0 ? CORRECT_EVERY : 0);
  await pushSentinel(db, sentinel);
  const raw = await rawDrain(db, from, sentinel);
  const pings = samplePings(mongo.client);
  const elapsed = startClock();
  const sidecar = await startSidecar(mongo, config(db), { waitForStreaming: false });
  const leadership = watchLeadership(sidecar);
  let sidecarMs: number | undefined;
  let startupMs = 0;
  try {
    await waitUntil(() => sidecar.runner.status().state === "streaming", {
      timeoutMs: DRAIN_TIMEOUT_MS,
      intervalMs: 5,
    });
    startupMs = elapsed();
    await waitForAllCorrected(db, sentinel, DRAIN_TIMEOUT_MS);
    sidecarMs = elapsed() - startupMs;
  } catch (err) {
    console.log(`sidecar did not drain within ${ms(DRAIN_TIMEOUT_MS)}: ${String(err)}`);
  }
  const drain = {
    events: raw.events,
    rawMs: raw.ms,
    startupMs,
    sidecarMs,
    pings: await pings.stop(),
    leaseLosses: leadership.stop(),
  };
  return { drain, sidecar };
}

function config(db: Db) {
  return testConfig(db.databaseName, { concurrency: 8 });
}

function drainRows(label: string, drain: Drain): string[][] {
  const rawRate = (drain.events * 1000) / drain.rawMs;
  const sidecarRate = drain.sidecarMs === undefined ? 0 : (drain.events * 1000) / drain.sidecarMs;
  return [
    [
      `${label}: bare change stream`,
      `${count(drain.events)} events in ${ms(drain.rawMs)} (${perSecond(drain.events, drain.rawMs)})`,
    ],
    [
      `${label}: sidecar`,
      drain.sidecarMs === undefined
        ? `not drained in ${ms(DRAIN_TIMEOUT_MS)}`
        : `${ms(drain.sidecarMs)} (${count(sidecarRate)}/s), ratio ${(sidecarRate / rawRate).toFixed(2)}, after ${ms(drain.startupMs)} starting`,
    ],
    [
      `${label}: ping p50 / p99 / max`,
      `${ms(percentile(drain.pings, 0.5))} / ${ms(percentile(drain.pings, 0.99))} / ${ms(Math.max(...drain.pings))} (${drain.pings.length})`,
    ],
    [`${label}: lease losses`, count(drain.leaseLosses)],
  ];
}

async function measureLive(db: Db, sidecar: TestSidecar, firstBook: number): Promise<string[][]> {
  await waitForCaughtUp(sidecar.runner, DRAIN_TIMEOUT_MS);
  const rows: string[][] = [];
  let first = firstBook;
  for (const rate of LIVE_RATES) {
    const books = await insertFullBooks(db, first, rate * LIVE_SECONDS);
    first += books.length;
    await waitForCaughtUp(sidecar.runner, DRAIN_TIMEOUT_MS);
    const latencies = await liveLatencies(db, books, rate);
    rows.push([
      `live latency at ${rate} triggers/s: p50 / p99 (seen)`,
      `${ms(percentile(latencies, 0.5))} / ${ms(percentile(latencies, 0.99))} (${latencies.length}/${books.length})`,
    ]);
    await verifyCorrectedBooks(db, books);
  }
  return rows;
}

async function run(): Promise<string[]> {
  heading(
    `backlog: ${count(PLAIN_EVENTS)} and ${count(CORRECTING_EVENTS)} events written while no sidecar ran`,
  );
  const mongo = await startTestMongo();
  const db = mongo.client.db(uniqueDatabaseName("bench_backlog"));
  const sidecars: TestSidecar[] = [];
  try {
    await insertSmallBooks(db);
    const correcting = await insertFullBooks(db, 0, CORRECTING_EVENTS / CORRECT_EVERY);
    const sentinels = await insertFullBooks(db, correcting.length, 2);
    // A first sidecar stores a position, so the next ones resume from before each backlog.
    const first = await startSidecar(mongo, config(db));
    await first.stop();
    const idle = await idlePingMs(mongo.client);
    console.log(`${mongo.embedded ? "embedded server, same process" : "MONGODB_URI"}; idle ping ${ms(idle)}`);

    const plain = await drainBacklog(mongo, db, PLAIN_EVENTS, [], sentinels[0]!);
    await plain.sidecar.stop();
    const fixing = await drainBacklog(mongo, db, CORRECTING_EVENTS, correcting, sentinels[1]!);
    sidecars.push(fixing.sidecar);
    const rows = [...drainRows("no correction", plain.drain), ...drainRows("1 in 5 corrects", fixing.drain)];
    if (fixing.drain.sidecarMs === undefined)
      rows.push(["live latency", "not measured: the backlog did not drain"]);
    else {
      await verifyCorrectedBooks(db, [...correcting, ...sentinels]);
      console.log(`verified: ${count(correcting.length + 2)} backlog books hold user00..user50 in order`);
      rows.push(...(await measureLive(db, fixing.sidecar, correcting.length + sentinels.length)));
    }
    printTable(["measure", "value"], rows);
    return rows.map(([name, value]) => `${name}: ${value}`);
  } finally {
    for (const sidecar of sidecars) await sidecar.stop();
    await db.dropDatabase();
    await mongo.close();
  }
}

export const backlog: Benchmark = {
  name: "backlog",
  description: "sidecar vs bare change stream over a backlog; pings, lease, live latency",
  run,
};
