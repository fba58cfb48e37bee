// `npm run bench -- scale`: costs that must not follow the size of the data (scale-corrections.ts)
// and a sweep over many documents in a child process (scale-sweep.ts). Sizes can be lowered
// with SCALE_EXTRAS, SCALE_BUCKETS, SCALE_BIG_BUCKET and SCALE_SWEEP_DOCUMENTS.
import { startTestMongo, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import type { Timing } from "./measure.js";
import { count, heading, mebibytes, ms, perSecond, printTable, ratio } from "./report.js";
import { timeBigBucketSplit, timeBucketSplit, timeOutlierMove } from "./scale-corrections.js";
import { checkpointPast, loadSales, runSweepAfterKill, runSweepChild, stillBroken } from "./scale-sweep.js";

function size(variable: string, fallback: number): number {
  const value = Number(process.env[variable]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function row(label: string, timing: Timing): string[] {
  return [label, ms(timing.meanMs), ms(timing.p50Ms), ms(timing.p99Ms)];
}

async function compareCorrections(mongo: TestMongo): Promise<string[]> {
  const extras = size("SCALE_EXTRAS", 999_960);
  const buckets = size("SCALE_BUCKETS", 100_000);
  heading(
    `scale: one correction beside little or much data (${mongo.embedded ? "embedded server" : "MONGODB_URI"})`,
  );
  // A first round warms the JIT and the server up; its times would weigh on the small cases.
  await timeOutlierMove(mongo, 60);
  await timeBucketSplit(mongo, 40);
  const fewExtras = await timeOutlierMove(mongo, 60);
  const manyExtras = await timeOutlierMove(mongo, extras);
  const fewBuckets = await timeBucketSplit(mongo, 40);
  const manyBuckets = await timeBucketSplit(mongo, buckets);
  printTable(
    ["correction (100 each)", "mean", "p50", "p99"],
    [
      row("purchase moved, 60 extras", fewExtras),
      row(`purchase moved, ${count(extras)} extras`, manyExtras),
      row("bucket split, 40 buckets", fewBuckets),
      row(`bucket split, ${count(buckets)} buckets`, manyBuckets),
    ],
  );
  const entries = size("SCALE_BIG_BUCKET", 100_000);
  const big = await timeBigBucketSplit(mongo, entries);
  console.log(
    `one bucket of ${count(entries)} entries split into ${count(big.buckets)} buckets in ${ms(big.ms)}`,
  );
  return [
    `purchase moved: ${ratio(manyExtras.meanMs, fewExtras.meanMs)} at ${count(extras)} vs 60 extras ` +
      `(${ms(manyExtras.meanMs)} vs ${ms(fewExtras.meanMs)}; goal <= 1.2)`,
    `bucket split: ${ratio(manyBuckets.meanMs, fewBuckets.meanMs)} at ${count(buckets)} vs 40 buckets ` +
      `(${ms(manyBuckets.meanMs)} vs ${ms(fewBuckets.meanMs)}; goal <= 1.5)`,
    `split of one ${count(entries)}-entry bucket: ${ms(big.ms)} (one transaction; mongod's limit 60 s)`,
  ];
}

async function sweepMany(mongo: TestMongo): Promise<string[]> {
  const documents = size("SCALE_SWEEP_DOCUMENTS", 200_000);
  heading(
    `scale: \`sweep\` in a child process over ${count(documents)} sales documents, 1% over the threshold`,
  );
  const whole = await runSweepChild(mongo, await loadSales(mongo, documents));
  const db = await loadSales(mongo, documents);
  const killed = await runSweepChild(mongo, db, checkpointPast(db, documents / 2));
  const brokenAtKill = await stillBroken(db);
  const resumed = await runSweepAfterKill(mongo, db);
  const left = await stillBroken(db);
  if (left !== 0) throw new Error(`bench: ${left} books still over the threshold after the resumed sweep`);
  printTable(
    ["run", "time", "examined", "documents/s", "peak RSS", "exit"],
    [
      [
        "whole sweep",
        ms(whole.ms),
        count(whole.examined),
        perSecond(documents, whole.ms),
        mebibytes(whole.peakRssBytes),
        String(whole.exitCode),
      ],
      ["killed at 50%", ms(killed.ms), "-", "-", mebibytes(killed.peakRssBytes), "SIGKILL"],
      [
        "resumed",
        ms(resumed.ms),
        count(resumed.examined),
        "-",
        mebibytes(resumed.peakRssBytes),
        String(resumed.exitCode),
      ],
    ],
  );
  return [
    `sweep of ${count(documents)} documents (${count(documents / 100)} to correct): ${ms(whole.ms)}, ` +
      `${perSecond(documents, whole.ms)} documents scanned, peak RSS ${mebibytes(whole.peakRssBytes)}`,
    `killed at 50% with ${count(brokenAtKill)} left to correct; the resumed sweep examined ${count(resumed.examined)} ` +
      `in ${ms(resumed.ms)} (${ratio(resumed.ms, whole.ms)} of the whole)`,
  ];
}

async function run(): Promise<string[]> {
  const mongo = await startTestMongo();
  try {
    return [...(await compareCorrections(mongo)), ...(await sweepMany(mongo))];
  } finally {
    await mongo.close();
  }
}

export const scale: Benchmark = {
  name: "scale",
  description:
    "corrections beside a million extras or 100,000 buckets; a sweep over many documents, killed and resumed",
  run,
};
