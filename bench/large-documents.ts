// Documents near the 16 MiB limit, as a careless application writes them: per pattern, how
// long the sidecar takes to correct one of ~14 MiB against a small one (in the same run), then
// the sidecar process's peak RSS with 1, 3 and 8 at once, per memory budget (correctionMemoryMiB),
// against the manifests' memory limit.
// The sidecar runs as deployed (the CLI in its own process, the image's flags), the embedded
// server in another.
import { readFileSync } from "node:fs";
import { MongoClient, type Db, type Document } from "mongodb";
import { parse as parseYaml } from "yaml";
import { waitUntil } from "../src/cli/wait-until.js";
import { isBookCorrected, review, users } from "../test/support/harness.js";
import { uniqueDatabaseName } from "../test/support/mongo.js";
import type { Benchmark } from "./benchmark.js";
import { startClock } from "./measure.js";
import { heading, mebibytes, ms, percent, printTable, ratio } from "./report.js";
import { startServerProcess } from "./server-process.js";
import { startSidecarProcess, type SidecarProcess } from "./sidecar-process.js";

const LARGE_BYTES = 14 * 1024 * 1024;
const CORRECTED_TIMEOUT_MS = 180_000;

interface PatternCase {
  name: string;
  /** Writes a document of about `bytes` that breaks the rule; resolves to a check that it is corrected. */
  write(db: Db, key: number, bytes: number): Promise<() => Promise<boolean>>;
}

function text(seed: number, bytes: number): string {
  return `${seed}:`.padEnd(bytes, "x");
}

const outlier: PatternCase = {
  name: "outlier (book)",
  async write(db, key, bytes) {
    const count = Math.max(60, Math.floor(bytes / 150));
    const buyers = count === 60 ? users(0, 60) : Array.from({ length: count }, (_, i) => text(i, 140));
    await db
      .collection<{ _id: number; customers_purchased: string[] }>("sales")
      .insertOne({ _id: key, customers_purchased: [] });
    await db
      .collection<{ _id: number; customers_purchased: string[] }>("sales")
      .updateOne({ _id: key }, { $push: { customers_purchased: { $each: buyers } } });
    return () => isBookCorrected(db, key, count);
  },
};

const bucket: PatternCase = {
  name: "bucket (trades)",
  async write(db, key, bytes) {
    const count = Math.max(11, Math.floor(bytes / 1500));
    const start = Date.UTC(2024, 0, 1);
    const history = Array.from({ length: count }, (_, i) => ({
      type: "buy",
      ticker: text(i, count === 11 ? 8 : 1400),
      qty: 1,
      date: new Date(start + i * 1000),
    }));
    await db
      .collection<{ _id: string; customerId: number; count: number; history: Document[] }>("trades")
      .insertOne({ _id: `${key}_${start / 1000}`, customerId: key, count, history });
    return async () => {
      const buckets = await db
        .collection<{ _id: string; history: Document[] }>("trades")
        .find({ customerId: key })
        .toArray();
      const held = buckets.reduce((sum, doc) => sum + (doc.history as unknown[]).length, 0);
      return held === count && buckets.every((doc) => (doc.history as unknown[]).length <= 10);
    };
  },
};

const subset: PatternCase = {
  name: "subset (product)",
  async write(db, key, bytes) {
    const count = Math.max(11, Math.floor(bytes / 45_000));
    const day = 86_400_000;
    const reviews = Array.from({ length: count }, (_, i) => ({
      ...review(i, new Date(Date.UTC(2020, 0, 1) + i * day)),
      ...(count === 11 ? {} : { review_text: text(i, 45_000) }),
    }));
    await db
      .collection<{ _id: number; name: string; reviews: Document[] }>("products")
      .insertOne({ _id: key, name: `p${key}`, reviews });
    return async () => {
      const product = await db
        .collection<{ _id: number; reviews: unknown[] }>("products")
        .findOne({ _id: key });
      const copied = await db.collection("reviews").countDocuments({ product_id: key });
      return product?.reviews.length === 10 && copied === count;
    };
  },
};

const CASES = [outlier, bucket, subset];

async function timeCorrection(db: Db, pattern: PatternCase, key: number, bytes: number): Promise<number> {
  const corrected = await pattern.write(db, key, bytes);
  const elapsed = startClock();
  await waitUntil(corrected, { timeoutMs: CORRECTED_TIMEOUT_MS, intervalMs: 10, description: pattern.name });
  return elapsed();
}

/** The memory limit of the standalone Deployment's sidecar container, in bytes. */
function manifestMemoryLimit(): number {
  const docs = readFileSync("k8s/standalone-deployment.yaml", "utf8").split(/^---$/m);
  const deployment = docs.map((doc) => parseYaml(doc) as Document).find((doc) => doc?.kind === "Deployment");
  const limit = String(deployment?.spec.template.spec.containers[0].resources.limits.memory);
  const mebi = /^(\d+)Mi$/.exec(limit);
  if (!mebi) throw new Error(`unexpected memory limit ${limit}`);
  return Number(mebi[1]) * 1024 * 1024;
}

/** A process's peak resident set (VmHWM), in bytes. */
function peakRss(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/**
 * The memory budgets compared, each with a fresh sidecar process: the largest the
 * configuration takes (no admission waits for eight documents of 14 MiB: the bound that was
 * before the budget, `concurrency`), and the default.
 */
const BUDGETS: readonly { label: string; correctionMemoryMiB?: number }[] = [
  { label: "1024 MiB (unbounded)", correctionMemoryMiB: 1024 },
  { label: "16 MiB (default)" },
];

/** How many ~14 MiB documents are written at once, in turn: one, one per pattern, `concurrency`. */
const AT_ONCE = [1, 3, 8];

/**
 * Writes `n` large documents at once (the patterns in turn), and waits until all are
 * corrected; undefined when the sidecar's process died meanwhile (out of memory).
 */
async function correctAtOnce(sidecar: SidecarProcess, db: Db, n: number, firstKey: number) {
  const elapsed = startClock();
  const checks = await Promise.all(
    Array.from({ length: n }, (_, i) => CASES[i % CASES.length]!.write(db, firstKey + i, LARGE_BYTES)),
  );
  await waitUntil(
    async () => !sidecar.running() || (await Promise.all(checks.map((check) => check()))).every(Boolean),
    { timeoutMs: CORRECTED_TIMEOUT_MS, intervalMs: 20, description: `${n} large documents corrected` },
  );
  return sidecar.running() ? elapsed() : undefined;
}

// The cost of a correction, not the wait a subset rule keeps for applications (settleMs).
const RULES = [{ pattern: "outlier" }, { pattern: "bucket" }, { pattern: "subset", settleMs: 0 }];

/** Peak RSS idle, then after each turn of AT_ONCE, with the time each took; undefined from a turn the process died in. */
async function peaksWith(uri: string, client: MongoClient, correctionMemoryMiB: number | undefined) {
  const database = uniqueDatabaseName("bench_large_peaks");
  const sidecar = await startSidecarProcess(uri, {
    database,
    rules: RULES,
    ...(correctionMemoryMiB ? { correctionMemoryMiB } : {}),
  });
  try {
    await sidecar.waitForCaughtUp(60_000);
    const peaks: (number | undefined)[] = [peakRss(sidecar.pid)];
    const times: (number | undefined)[] = [];
    for (const [turn, n] of AT_ONCE.entries()) {
      const took = sidecar.running()
        ? await correctAtOnce(sidecar, client.db(database), n, 1000 * (turn + 1))
        : undefined;
      times.push(took);
      peaks.push(took === undefined ? undefined : peakRss(sidecar.pid));
    }
    return { peaks, times };
  } finally {
    await sidecar.stop();
  }
}

const DIED = "died";

/** Per budget, the sidecar's peak RSS idle and after 1, 3 and 8 large documents at once; ratios to the unbounded one. */
async function comparePeaks(uri: string): Promise<string[]> {
  heading("peak RSS per memory budget: idle, then 1, 3 and 8 ~14 MiB documents at once");
  const client = new MongoClient(uri);
  await client.connect();
  const measured: { peaks: (number | undefined)[]; times: (number | undefined)[] }[] = [];
  try {
    for (const budget of BUDGETS) measured.push(await peaksWith(uri, client, budget.correctionMemoryMiB));
  } finally {
    await client.close();
  }
  const limit = manifestMemoryLimit();
  const rows = BUDGETS.map(({ label }, i) => [
    label,
    ...measured[i]!.peaks.map((peak) => (peak === undefined ? DIED : mebibytes(peak))),
    ...measured[i]!.times.map((time) => (time === undefined ? DIED : ms(time))),
  ]);
  printTable(["budget", "idle", "1", "3", "8", "1 took", "3 took", "8 took"], rows);
  const [unbounded, bounded] = measured.map((m) => m.peaks) as [
    (number | undefined)[],
    (number | undefined)[],
  ];
  const ratios = bounded.map((peak, i) => {
    const base = unbounded[i];
    return peak === undefined || base === undefined ? `against ${DIED}` : ratio(peak, base);
  });
  const eight = bounded.at(-1);
  const ofLimit = eight === undefined ? DIED : `${percent(eight, limit)} of the ${mebibytes(limit)} limit`;
  console.log(
    `default against unbounded: idle ${ratios[0]}, then ${AT_ONCE.map((n, i) => `${n} at once ${ratios[i + 1]}`).join(", ")}`,
  );
  console.log(`the default's peak with 8 at once: ${ofLimit}`);
  return rows
    .map((row) => `${row[0]}: peak RSS idle ${row[1]}, 1 at once ${row[2]}, 3 ${row[3]}, 8 ${row[4]}`)
    .concat(`default against unbounded: ${ratios.join(", ")}; the default's 8 at once ${ofLimit}`);
}

export const largeDocuments: Benchmark = {
  name: "large-documents",
  description:
    "per pattern, a ~14 MiB document against a small one; peak RSS with 1, 3, 8 at once per memory budget",
  async run() {
    heading("large documents: ack to corrected, ~14 MiB against small, in one run");
    const server = await startServerProcess();
    try {
      const summary = await timePatterns(server.uri);
      summary.push(...(await comparePeaks(server.uri)));
      return summary;
    } finally {
      await server.stop();
    }
  },
};

/** Per pattern, a ~14 MiB document's correction against a small one's, with the default budget. */
async function timePatterns(uri: string): Promise<string[]> {
  const database = uniqueDatabaseName("bench_large");
  const client = new MongoClient(uri);
  const sidecar = await startSidecarProcess(uri, { database, rules: RULES });
  try {
    await client.connect();
    const db = client.db(database);
    await sidecar.waitForCaughtUp(60_000);
    const rows: string[][] = [];
    const summary: string[] = [];
    for (const [index, pattern] of CASES.entries()) {
      const small = await timeCorrection(db, pattern, 100 + index, 0);
      const large = await timeCorrection(db, pattern, 200 + index, LARGE_BYTES);
      rows.push([pattern.name, ms(small), ms(large), ratio(large, small)]);
      summary.push(`${pattern.name}: ~14 MiB ${ms(large)}, small ${ms(small)} (${ratio(large, small)})`);
    }
    printTable(["pattern", "small", "~14 MiB", "ratio"], rows);
    return summary;
  } finally {
    await sidecar.stop();
    await client.close();
  }
}
