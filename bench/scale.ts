// `npm run bench -- scale`: costs that must not follow the size of the data (scale-corrections.ts)
// and a sweep over many documents in a child process (scale-sweep.ts). Sizes can be lowered
// with SCALE_EXTRAS, SCALE_BUCKETS, SCALE_REVIEWS, SCALE_BIG_BUCKET and SCALE_SWEEP_DOCUMENTS
// (a comma-separated list of sizes; the largest is also killed and resumed).
import { startTestMongo, type TestMongo } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { count, heading, mebibytes, ms, perSecond, printTable, ratio } from "./report.js";
import { median, timeAlternating, type Timing } from "./measure.js";
import { bucketScenario, outlierScenario, timeBigBucketSplit, type Scenario } from "./scale-corrections.js";
import { imageNode } from "../test/ops/image-node.js";
import { explainRows, subsetReads, type Explainable } from "./scale-explain.js";
import {
  buildSidecar,
  checkpointAfter,
  checkpointPast,
  loadSales,
  runSweepAfterKill,
  runSweepChild,
  stillBroken,
  type SweepRun,
} from "./scale-sweep.js";

function size(variable: string, fallback: number): number {
  const value = Number(process.env[variable]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function row(label: string, timing: Timing): string[] {
  return [label, ms(timing.p50Ms), ms(timing.meanMs), ms(timing.p99Ms)];
}

const ALTERNATION = { warmUp: 10, rounds: 10, perRound: 20 };
const OUTLIER = { correction: "outlier: read the book and its last chunk", unit: "extras" };
const BUCKET = { correction: "bucket: read the bucket and the ids it could take", unit: "buckets" };

interface Comparison {
  label: string;
  small: Scenario & Explainable;
  large: Scenario & Explainable;
  goal: number;
}

/**
 * Both sides loaded first, then timed in alternating rounds (measure.ts): the figure is the
 * ratio of their median calls over all rounds, with the rounds' own ratios beside it, so that
 * a collection, a warm-up or a busy machine landing in one side's calls shows as one odd
 * round instead of the result.
 */
async function compare(comparison: Comparison): Promise<{ rows: string[][]; summary: string }> {
  const { small, large, label, goal } = comparison;
  const timed = await timeAlternating(small.correctOnce, large.correctOnce, ALTERNATION);
  const rows = [
    row(`${label}, ${count(small.size)} ${small.unit}`, timed.a),
    row(`${label}, ${count(large.size)} ${large.unit}`, timed.b),
  ];
  const rounds = timed.roundRatios.map((value) => value.toFixed(2)).join(", ");
  const spread = `median round ${ratio(median(timed.roundRatios), 1)}`;
  const summary =
    `${label}: ${ratio(timed.b.p50Ms ?? 0, timed.a.p50Ms ?? 1)} at ${count(large.size)} vs ${count(small.size)} ${large.unit} ` +
    `(median call ${ms(timed.b.p50Ms)} vs ${ms(timed.a.p50Ms)}, mean ${ms(timed.b.meanMs)} vs ${ms(timed.a.meanMs)}; ` +
    `${spread}, rounds ${rounds}; goal <= ${goal})`;
  return { rows, summary };
}

/** Explained, then dropped: one comparison's data must not weigh on the next one's timings. */
async function explainAndDrop(mongo: TestMongo, targets: Explainable[]): Promise<string[][]> {
  const rows = await explainRows(mongo, targets);
  for (const target of targets) await target.db.dropDatabase();
  return rows;
}

async function compareCorrections(mongo: TestMongo): Promise<string[]> {
  const extras = size("SCALE_EXTRAS", 999_960);
  const buckets = size("SCALE_BUCKETS", 100_000);
  const reviews = size("SCALE_REVIEWS", 100_000);
  heading(
    `scale: one correction beside little or much data (${mongo.embedded ? "embedded server" : "MONGODB_URI"})`,
  );
  const explainTable: string[][] = [];
  const rows: string[][] = [];
  const summaries: string[] = [];
  const comparisons: Array<() => Promise<Comparison>> = [
    async () => ({
      label: "purchase moved",
      small: { ...(await outlierScenario(mongo, 60)), ...OUTLIER, size: 60 },
      large: { ...(await outlierScenario(mongo, extras)), ...OUTLIER, size: extras },
      goal: 1.2,
    }),
    async () => ({
      label: "bucket split",
      small: { ...(await bucketScenario(mongo, 40)), ...BUCKET, size: 40 },
      large: { ...(await bucketScenario(mongo, buckets)), ...BUCKET, size: buckets },
      goal: 1.5,
    }),
  ];
  for (const prepare of comparisons) {
    const comparison = await prepare();
    const result = await compare(comparison);
    rows.push(...result.rows);
    summaries.push(result.summary);
    explainTable.push(...(await explainAndDrop(mongo, [comparison.small, comparison.large])));
  }
  printTable(["correction (alternating rounds)", "p50", "mean", "p99"], rows);
  explainTable.push(
    ...(await explainAndDrop(mongo, [await subsetReads(mongo, 12), await subsetReads(mongo, reviews)])),
  );
  heading("scale: what each correction reads (explain, executionStats)");
  printTable(["correction", "beside", "read", "stages", "keys", "docs"], explainTable);
  const entries = size("SCALE_BIG_BUCKET", 100_000);
  const big = await timeBigBucketSplit(mongo, entries);
  console.log(
    `one bucket of ${count(entries)} entries split into ${count(big.buckets)} buckets in ${ms(big.ms)}`,
  );
  return [
    ...summaries,
    `split of one ${count(entries)}-entry bucket: ${ms(big.ms)} (one transaction; mongod's limit 60 s)`,
  ];
}

function sizes(variable: string, fallback: number[]): number[] {
  const values = (process.env[variable] ?? "").split(",").map(Number);
  return values.every((value) => Number.isInteger(value) && value > 0) ? values : fallback;
}

/** A whole sweep at each size (memory beside size); the largest is then killed halfway and resumed. */
async function sweepMany(mongo: TestMongo): Promise<string[]> {
  const all = sizes("SCALE_SWEEP_DOCUMENTS", [5_000, 200_000, 1_000_000]);
  const documents = Math.max(...all);
  const node = imageNode();
  heading(
    `scale: \`sweep\` (node ${node.flags.join(" ")} dist/main.js, NODE_OPTIONS="${node.options}") in a child process over sales, 1% over the threshold`,
  );
  await buildSidecar();
  const rows: string[][] = [];
  const whole: SweepRun[] = [];
  for (const size of all) {
    const db = await loadSales(mongo, size);
    const run = await runSweepChild(mongo, db);
    await db.dropDatabase();
    whole.push(run);
    rows.push(sweepRow(`whole sweep, ${count(size)} documents`, run, size));
    // Printed as each run ends too: the table comes only after the largest, many minutes on.
    console.log(rows.at(-1)!.join("  "));
  }
  const db = await loadSales(mongo, documents);
  const killed = await runSweepChild(mongo, db, checkpointPast(db, documents / 2));
  const brokenAtKill = await stillBroken(db);
  const resumedAfter = (await checkpointAfter(db)) ?? 0;
  const resumed = await runSweepAfterKill(mongo, db);
  const left = await stillBroken(db);
  await db.dropDatabase();
  if (left !== 0) throw new Error(`bench: ${left} books still over the threshold after the resumed sweep`);
  rows.push(sweepRow(`killed at 50% (SIGKILL), ${count(documents)}`, killed));
  rows.push(sweepRow(`resumed, ${count(documents)}`, resumed));
  printTable(
    ["run", "time", "examined", "documents/s", "per CPU s", "peak RSS", "sweep CPU", "server CPU", "exit"],
    rows,
  );
  const largest = whole[whole.length - 1]!;
  return [
    ...all.map(
      (size, index) =>
        `sweep of ${count(size)} documents (${count(size / 100)} to correct): ${ms(whole[index]!.ms)}, ` +
        `${perSecond(size, whole[index]!.ms)} documents scanned (${perSecond(size, whole[index]!.cpuMs + whole[index]!.serverCpuMs)} ` +
        `per CPU second of sweep and server), peak RSS ${mebibytes(whole[index]!.peakRssBytes)}`,
    ),
    `killed at 50% with ${count(brokenAtKill)} left to correct; the resumed sweep continued after _id ` +
      `${count(resumedAfter)} (${count(documents - resumedAfter)} documents left to scan), examined ${count(resumed.examined)} ` +
      `in ${ms(resumed.ms)} (${ratio(resumed.ms, largest.ms)} of the whole), peak RSS ${mebibytes(resumed.peakRssBytes)}`,
  ];
}

function sweepRow(label: string, run: SweepRun, documents?: number): string[] {
  return [
    label,
    ms(run.ms),
    documents === undefined && run.exitCode === null ? "-" : count(run.examined),
    documents === undefined ? "-" : perSecond(documents, run.ms),
    // Rates per CPU second of both processes: the machine's other load does not weigh on them.
    documents === undefined ? "-" : perSecond(documents, run.cpuMs + run.serverCpuMs),
    mebibytes(run.peakRssBytes),
    ms(run.cpuMs),
    ms(run.serverCpuMs),
    run.exitCode === null ? "SIGKILL" : String(run.exitCode),
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
