// A sweep over many sales documents, 1% of them over the threshold, run as the image runs it:
// `node dist/main.js sweep` (built first) with the image's NODE_OPTIONS, in a child process
// against this process's server. Its peak RSS (VmHWM) and CPU time, read from /proc while it
// runs, show whether memory follows the collection's size; a second run is killed (SIGKILL)
// halfway and a third continues from its checkpoint.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db, Document } from "mongodb";
import { users } from "../test/support/harness.js";
import { imageNode } from "../test/ops/image-node.js";
import { uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import { startClock } from "./measure.js";
import { ownCpuMs, processCpuMs } from "./process-cpu.js";

const STATE = "pattern_sidecar_state";
const CHECKPOINT = "sweep:sales.customers_purchased:source";

export interface SweepRun {
  ms: number;
  exitCode: number | null;
  peakRssBytes: number;
  /** CPU time of the sweep's process. */
  cpuMs: number;
  /** CPU time of this process meanwhile: the embedded server's work (and the polling's). */
  serverCpuMs: number;
  examined: number;
}

const BATCH = 10_000;

/** `documents` books, every 100th with 60 purchasers (over the threshold of 50), the rest 5. */
export async function loadSales(mongo: TestMongo, documents: number): Promise<Db> {
  const db = mongo.client.db(uniqueDatabaseName("bench_scale_sweep"));
  for (let from = 1; from <= documents; from += BATCH) {
    const batch: Document[] = [];
    for (let id = from; id < Math.min(from + BATCH, documents + 1); id += 1)
      batch.push({ _id: id, customers_purchased: users(0, id % 100 === 0 ? 60 : 5) });
    await db.collection("sales").insertMany(batch);
  }
  return db;
}

async function peakRss(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => undefined);
  const kib = status && /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kib ? Number(kib) * 1024 : undefined;
}

/** `npm run build`, so that the sweep runs from dist/ as in the image. */
export async function buildSidecar(): Promise<void> {
  const child = spawn("npm", ["run", "build", "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`bench: npm run build exited with ${code}`);
}

/** Runs `sweep`; `killWhen`, polled while it runs, SIGKILLs it when true. */
export async function runSweepChild(
  mongo: TestMongo,
  db: Db,
  killWhen: () => Promise<boolean> = () => Promise.resolve(false),
): Promise<SweepRun> {
  const config = join(tmpdir(), `bench-sweep-${process.pid}.yaml`);
  // A killed sweep leaves its lease to expire before the next may take it. 10 s was too short
  // on a loaded machine: this process, the server, holding over a GiB of documents, once
  // stalled 13 s and the sweep lost its lease (it stopped correcting and took it back).
  await writeFile(config, "leaseSeconds: 30\n");
  const uri = mongo.uri.replace(/\/?(\?|$)/, `/${db.databaseName}$1`);
  const elapsed = startClock();
  const serverCpuBefore = ownCpuMs();
  const node = imageNode();
  const child = spawn(process.execPath, [...node.flags, "dist/main.js", "sweep", "--config", config], {
    env: { ...process.env, MONGODB_URI: uri, SIDECAR_LOG_LEVEL: "warn", NODE_OPTIONS: node.options },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  let peak = 0;
  let cpu = 0;
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    peak = Math.max(peak, (await peakRss(child.pid ?? 0)) ?? 0);
    cpu = Math.max(cpu, processCpuMs(child.pid) ?? 0);
    if (await killWhen()) child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exitCode = await exited;
  const examined = Number(/^sales\.customers_purchased .*examined (\d+)/m.exec(stdout)?.[1] ?? 0);
  return {
    ms: elapsed(),
    exitCode,
    peakRssBytes: peak,
    cpuMs: cpu,
    serverCpuMs: ownCpuMs() - serverCpuBefore,
    examined,
  };
}

/** The `_id` the sweep's checkpoint says it finished, if any. */
export async function checkpointAfter(db: Db): Promise<number | undefined> {
  const checkpoint = await db.collection(STATE).findOne({ _id: CHECKPOINT as never });
  return typeof checkpoint?.after === "number" ? checkpoint.after : undefined;
}

/** Whether the sweep's checkpoint is past `id`. */
export function checkpointPast(db: Db, id: number): () => Promise<boolean> {
  return async () => ((await checkpointAfter(db)) ?? 0) >= id;
}

/** Books still over the threshold. */
export function stillBroken(db: Db): Promise<number> {
  return db.collection("sales").countDocuments({ "customers_purchased.50": { $exists: true } });
}

/** Runs the sweep again until the killed one's lease has expired (exit 7 until then). */
export async function runSweepAfterKill(mongo: TestMongo, db: Db): Promise<SweepRun> {
  for (;;) {
    const run = await runSweepChild(mongo, db);
    if (run.exitCode !== 7) return run;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
