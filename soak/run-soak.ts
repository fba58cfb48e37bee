// One soak run: the workloads' documents, the lease audit, the sidecar replicas, the
// writers and the chaos for `seconds`; then the writers stop, the replicas are left to catch
// up, and every invariant is checked against what was written.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient, type Db } from "mongodb";
import { waitUntil } from "../src/cli/wait-until.js";
import { badDocumentsWorkload } from "./bad-documents.js";
import { bucketWorkload } from "./bucket.js";
import { runChaos, type ChaosTally } from "./chaos.js";
import { LeaseAudit } from "./lease-audit.js";
import { CHUNK_SIZE, outlierWorkload } from "./outlier.js";
import { Prng } from "./prng.js";
import { freePort, Replica } from "./replicas.js";
import type { Readiness } from "../test/support/cli-replicas.js";
import { correctionsLogged as correctionsIn } from "../test/support/harness.js";
import { subsetWorkload } from "./subset.js";
import { runWriter, type Workload, type Writer, type WriterTally } from "./workload.js";

const STATE_COLLECTION = "pattern_sidecar_state";
/** The replicas' `partitions` (the config's default). */
const PARTITIONS = 16;

export interface SoakOptions {
  uri: string;
  database: string;
  seed: number;
  seconds: number;
  /** The replicas' leaseSeconds; default 2, so that pauses past it force takeovers. */
  leaseSeconds?: number;
  /** Each writer pauses up to this long between writes (default 40 ms): the write rate. */
  maxWriterPauseMs?: number;
  /** Upper bound on catching up after the writers stop. */
  settleTimeoutMs?: number;
  /** How many sidecar replicas run (default 2): one leads, the others stand by. */
  replicas?: number;
}

export interface SoakResult extends ChaosTally, WriterTally {
  seed: number;
  seconds: number;
  replicas: number;
  corrections: number;
  takeovers: number;
  /** Partition leases' terms begun: each partition's first, then one per takeover. */
  partitionTerms: number;
  violations: string[];
  logDir: string;
}

async function startReplicas(options: SoakOptions, dir: string): Promise<Replica[]> {
  const config = {
    database: options.database,
    leaseSeconds: options.leaseSeconds ?? 2,
    logLevel: "info",
    rules: [{ pattern: "outlier", chunkSize: CHUNK_SIZE }, { pattern: "bucket" }, { pattern: "subset" }],
  };
  const replicas: Replica[] = [];
  for (let i = 0; i < (options.replicas ?? 2); i++) {
    const name = `replica-${String.fromCharCode("a".charCodeAt(0) + i)}`;
    const replica = new Replica({ name, uri: options.uri, config, dir }, await freePort());
    await replica.start();
    replicas.push(replica);
  }
  return replicas;
}

/** Something that answers for a replica's /readyz: the soak's Replica, or a test's. */
export interface ReadinessOf {
  readiness(): Promise<Readiness | undefined>;
}

/** Every workload's writers, each application's ledger with it: made once per run. */
export function writersOf(db: Db, workloads: Workload[], prng: Prng): Writer[] {
  return workloads.flatMap((workload, i) => workload.writers(db, prng.fork(i)));
}

/** Runs `writers` until `stopped` says so or one fails; run them again to write on. */
export async function runWriters(
  writers: Writer[],
  prng: Prng,
  stopped: () => boolean,
  maxPauseMs: number,
): Promise<WriterTally> {
  const tally: WriterTally = { writes: 0, elements: 0, failures: [] };
  const done = () => stopped() || tally.failures.length > 0;
  await Promise.all(
    writers.map((writer, i) => runWriter(writer, prng.fork(1_000 + i), done, tally, maxPauseMs)),
  );
  return tally;
}

/**
 * Every replica streaming and caught up or standing by, and the streaming ones owning every
 * partition once: one leading (it owns them all), or each its share.
 */
async function idle(replicas: readonly ReadinessOf[], partitions: number): Promise<boolean> {
  const states = await Promise.all(replicas.map((replica) => replica.readiness()));
  const streaming = states.filter((state) => state?.state === "streaming" && state.caughtUp === true);
  const standby = states.filter((state) => state?.state === "standby");
  const owned = streaming.flatMap((state) => state!.partitions ?? []);
  return (
    streaming.length > 0 &&
    streaming.length + standby.length === replicas.length &&
    owned.length === partitions &&
    new Set(owned).size === partitions
  );
}

// A first start sweeps, and sweeps leave loose trades to `migrate`; once a position is
// stored, every later leader resumes from it and folds what was written meanwhile.
async function waitForFirstPosition(db: Db, replicas: Replica[]): Promise<void> {
  await waitUntil(
    async () =>
      (await idle(replicas, PARTITIONS)) &&
      (await db
        .collection<{ _id: string }>(STATE_COLLECTION)
        .findOne({ _id: `changestream:${db.databaseName}` })),
    { timeoutMs: 120_000, intervalMs: 250, description: "the first leader to stream and store its position" },
  );
}

async function violations(db: Db, workloads: Workload[]): Promise<string[]> {
  return (await Promise.all(workloads.map((workload) => workload.violations(db)))).flat();
}

// Settled: idle, and the same invariants failing (none, once caught up) for a few seconds in
// a row, so that a violation that will never heal does not hold the run up. Past the bound,
// whatever still fails is reported.
export async function settle(
  db: Db,
  workloads: Workload[],
  replicas: readonly ReadinessOf[],
  timeoutMs: number,
  partitions = PARTITIONS,
): Promise<string[]> {
  let previous: string | undefined;
  let stableFor = 0;
  const stable = async () => {
    const current = (await idle(replicas, partitions))
      ? (await violations(db, workloads)).join("\n")
      : undefined;
    stableFor = current !== undefined && current === previous ? stableFor + 1 : 0;
    previous = current;
    return stableFor >= 3;
  };
  try {
    await waitUntil(stable, { timeoutMs, intervalMs: 1_000, description: "the sidecars to catch up" });
  } catch {
    // reported below, with what still fails
  }
  const problems = await violations(db, workloads);
  if (!(await idle(replicas, partitions)))
    problems.push(`the replicas were not idle ${timeoutMs / 1000} s after the writers stopped`);
  return problems;
}

async function correctionsLogged(replicas: Replica[]): Promise<number> {
  const lines = (await Promise.all(replicas.map((replica) => replica.logLines()))).flat();
  return correctionsIn(lines).length;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const prng = new Prng(options.seed);
  const logDir = await mkdtemp(join(tmpdir(), `soak-${options.seed}-`));
  const client = await new MongoClient(options.uri).connect();
  const db = client.db(options.database);
  const workloads = [outlierWorkload(), bucketWorkload(), subsetWorkload(), badDocumentsWorkload()];
  let replicas: Replica[] = [];
  let audit: LeaseAudit | undefined;
  try {
    for (const workload of workloads) await workload.setUp(db);
    audit = await LeaseAudit.start(client, db, STATE_COLLECTION);
    replicas = await startReplicas(options, logDir);
    await waitForFirstPosition(db, replicas);
    const until = Date.now() + options.seconds * 1_000;
    const writing = prng.fork(1);
    const [writes, chaos] = await Promise.all([
      runWriters(
        writersOf(db, workloads, writing),
        writing,
        () => Date.now() >= until,
        options.maxWriterPauseMs ?? 40,
      ),
      runChaos(replicas, prng.fork(2), until, options.leaseSeconds ?? 2),
    ]);
    const problems = await settle(db, workloads, replicas, options.settleTimeoutMs ?? 180_000);
    await Promise.all(replicas.map((replica) => replica.stop()));
    await audit.finish();
    return {
      seed: options.seed,
      seconds: options.seconds,
      replicas: replicas.length,
      ...writes,
      ...chaos,
      corrections: await correctionsLogged(replicas),
      takeovers: Math.max(0, audit.terms - 1),
      partitionTerms: audit.partitionTerms,
      violations: [...writes.failures, ...problems, ...audit.violations()],
      logDir,
    };
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
    // Before the client closes: its stream's next read would fail unhandled, hiding why the run ended.
    await audit?.close();
    await client.close();
  }
}
