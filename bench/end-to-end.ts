// The whole sidecar against the embedded server (or MONGODB_URI, as the tests): 500 books
// pushed past the outlier threshold by a naive application, twice, while the Runner streams.
// Measures corrections per second until every book is back in shape, how far the change
// stream fell behind, and then checks every book's purchasers, in order, nothing lost.
import type { Db } from "mongodb";
import { configSchema } from "../src/config/schema.js";
import type { Metrics } from "../src/ops/metrics.js";
import { waitUntil } from "../src/cli/wait-until.js";
import {
  allPurchasers,
  metricTotal,
  startSidecar,
  testConfig,
  users,
  type TestSidecar,
} from "../test/support/harness.js";
import { startTestMongo, uniqueDatabaseName } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { startClock, timeOnce } from "./measure.js";
import { count, heading, ms, perSecond, printTable } from "./report.js";

const BOOKS = 500;
/** Each book gets this many purchasers in one naive $push, then the second batch. */
const PUSHES = [100, 20];
const APPLICATION_WORKERS = 8;
const FIX_TIMEOUT_MS = 120_000;
const LAG_SAMPLE_MS = 50;

const PURCHASERS = PUSHES.reduce((sum, n) => sum + n, 0);

async function inParallel<T>(items: readonly T[], workers: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

const bookIds = Array.from({ length: BOOKS }, (_, i) => i + 1);

/** The naive application: every purchase goes to `sales`, has_extras or not. */
async function pushPurchasers(db: Db): Promise<void> {
  let from = 0;
  for (const batch of PUSHES) {
    const buyers = users(from, from + batch);
    await inParallel(bookIds, APPLICATION_WORKERS, async (id) => {
      await db
        .collection<{ _id: number; customers_purchased: string[] }>("sales")
        .updateOne({ _id: id }, { $push: { customers_purchased: { $each: buyers } } });
    });
    from += batch;
  }
}

/** Samples the stream-lag gauge while the work runs; it has whole-second resolution. */
function sampleLag(metrics: Metrics): { stop(): number } {
  let maxSeconds = 0;
  const timer = setInterval(() => {
    void metrics.streamLag.get().then(({ values }) => {
      maxSeconds = Math.max(maxSeconds, values[0]?.value ?? 0);
    });
  }, LAG_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return maxSeconds;
    },
  };
}

async function histogramMeanMs(metrics: Metrics): Promise<number> {
  const { values } = await metrics.correctionDuration.get();
  const total = (suffix: string) =>
    values.filter((v) => v.metricName?.endsWith(suffix)).reduce((sum, v) => sum + v.value, 0);
  return (total("_sum") / Math.max(1, total("_count"))) * 1000;
}

async function allFixed(db: Db, metrics: Metrics): Promise<boolean> {
  const moved = await metricTotal(metrics.elementsMoved, { collection: "sales" });
  if (moved < BOOKS * (PURCHASERS - 50)) return false;
  return (await db.collection("sales").countDocuments({ "customers_purchased.50": { $exists: true } })) === 0;
}

async function verifyBooks(db: Db): Promise<void> {
  const expected = users(0, PURCHASERS).join(",");
  await inParallel(bookIds, APPLICATION_WORKERS, async (id) => {
    const book = await db.collection("sales").findOne({ _id: id as never });
    const purchasers = await allPurchasers(db, id);
    if (book?.has_extras !== true || purchasers.join(",") !== expected) {
      throw new Error(
        `book ${id}: has_extras ${String(book?.has_extras)}, purchasers ${purchasers.join(",")}`,
      );
    }
  });
}

async function measureCorrections(db: Db, sidecar: TestSidecar) {
  const lag = sampleLag(sidecar.metrics);
  try {
    const elapsed = startClock();
    const writes = await timeOnce(() => pushPurchasers(db));
    await waitUntil(() => allFixed(db, sidecar.metrics), {
      timeoutMs: FIX_TIMEOUT_MS,
      intervalMs: 20,
      description: `all ${BOOKS} books to hold 50 purchasers`,
    });
    return { writesMs: writes.ms, fixedMs: elapsed() };
  } finally {
    const maxLagSeconds = lag.stop();
    console.log(`max stream lag gauge: ${maxLagSeconds.toFixed(2)} s (cluster-time seconds: up to 1 s high)`);
  }
}

async function run(): Promise<string[]> {
  heading(`end to end: ${count(BOOKS)} books pushed past the outlier threshold, sidecar streaming`);
  const mongo = await startTestMongo();
  const database = uniqueDatabaseName("bench_end_to_end");
  const db = mongo.client.db(database);
  let sidecar: TestSidecar | undefined;
  try {
    await db
      .collection("sales")
      .insertMany(bookIds.map((id) => ({ _id: id as never, title: `Book ${id}`, customers_purchased: [] })));
    // The default concurrency, not the tests' lower one.
    const config = testConfig(database, { concurrency: configSchema.parse({}).concurrency });
    const started = await timeOnce(() => startSidecar(mongo, config));
    sidecar = started.result;
    const deployment = mongo.embedded ? "embedded server, same process" : "MONGODB_URI";
    console.log(
      `${deployment}; sidecar streaming after ${ms(started.ms)}, concurrency ${config.concurrency}`,
    );

    const { writesMs, fixedMs } = await measureCorrections(db, sidecar);
    const { metrics } = sidecar;
    const corrections = await metricTotal(metrics.corrections, { collection: "sales" });
    const moved = await metricTotal(metrics.elementsMoved, { collection: "sales" });
    const retries = await metricTotal(metrics.transactionRetries);
    const errors = await metricTotal(metrics.errors);
    const meanCorrectionMs = await histogramMeanMs(metrics);
    await verifyBooks(db);

    const updates = BOOKS * PUSHES.length;
    printTable(
      ["measure", "value"],
      [
        [
          "application $push updates",
          `${count(updates)} in ${ms(writesMs)} (${perSecond(updates, writesMs)})`,
        ],
        ["corrections committed (moved)", count(corrections)],
        ["purchasers moved to extra_sales", count(moved)],
        ["first write to all books fixed", ms(fixedMs)],
        ["catch-up after the last write acked", ms(fixedMs - writesMs)],
        ["corrections per second", perSecond(corrections, fixedMs)],
        ["purchasers moved per second", perSecond(moved, fixedMs)],
        ["mean correction (transaction) time", ms(meanCorrectionMs)],
        ["transaction retries / errors", `${count(retries)} / ${count(errors)}`],
      ],
    );
    console.log(
      `verified: all ${count(BOOKS)} books hold user00..user${PURCHASERS - 1} in order, 50 embedded`,
    );
    return [
      `${count(corrections)} corrections in ${ms(fixedMs)}: ${perSecond(corrections, fixedMs)}, ` +
        `${perSecond(moved, fixedMs)} purchasers moved; mean correction ${ms(meanCorrectionMs)}`,
      `caught up ${ms(fixedMs - writesMs)} after the last of ${count(updates)} application writes`,
    ];
  } finally {
    await sidecar?.stop();
    await db.dropDatabase();
    await mongo.close();
  }
}

export const endToEnd: Benchmark = {
  name: "end-to-end",
  description: "Runner + embedded server: 500 outlier books corrected, corrections per second",
  run,
};
