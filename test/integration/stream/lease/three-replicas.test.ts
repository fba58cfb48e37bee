// Real processes: three sidecars (the CLI) share the partitions evenly while the soak's
// applications write on all three patterns; one is paused, one SIGTERMed, one added and one
// SIGKILLed. After each, no partition was claimed by two running replicas at once (sampled
// from /readyz), no commit landed under a lease its replica no longer held (the soak's lease
// audit), and every invariant of the soak's workloads holds. docs/operations.md, "Partitions
// and rebalancing".
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { bucketWorkload } from "../../../../soak/bucket.js";
import { LeaseAudit } from "../../../../soak/lease-audit.js";
import { CHUNK_SIZE, outlierWorkload } from "../../../../soak/outlier.js";
import { Prng } from "../../../../soak/prng.js";
import { runWriters, settle, writersOf } from "../../../../soak/run-soak.js";
import { subsetWorkload } from "../../../../soak/subset.js";
import type { Writer } from "../../../../soak/workload.js";
import { useCliReplicas } from "../../../support/cli-replicas.js";

const PARTITIONS = 6;
const STATE = "pattern_sidecar_state";
const CONFIG = [
  `partitions: ${PARTITIONS}`,
  "rules:",
  "  - pattern: outlier",
  `    chunkSize: ${CHUNK_SIZE}`,
  "  - pattern: bucket",
  "  - pattern: subset",
  "",
].join("\n");

const { fixture, start, readiness } = useCliReplicas("three_replicas", {
  setUp: startThree,
  // Unset when setUp failed before it: the failure is setUp's, not the audit's.
  tearDown: async () => audit?.finish(),
});
const workloads = [outlierWorkload(), bucketWorkload(), subsetWorkload()];
const prng = new Prng(36);
let writers: Writer[];
/** From before the first replica starts: leases' terms and commits in commit order. */
let audit: LeaseAudit;
/** The replicas running now (a paused one included), oldest first. */
const running: ChildProcess[] = [];

async function startReplica(): Promise<ChildProcess> {
  const child = await start(CONFIG);
  running.push(child);
  return child;
}

const state = () => fixture.db.collection<{ _id: string; holder: string; expiresAt: Date }>(STATE);

/** Each replica's partitions (by pid), from the unexpired partition leases. */
async function holdings(replicas: readonly ChildProcess[]): Promise<number[][]> {
  const leases = await state()
    .find({ _id: { $regex: "^lease\\.partition\\.\\d+$" }, expiresAt: { $gt: new Date() } })
    .toArray();
  return replicas.map((child) =>
    leases
      .filter((lease) => lease.holder.includes(`:${child.pid}:`))
      .map((lease) => Number(lease._id.split(".")[2])),
  );
}

async function sharedEvenly(replicas: readonly ChildProcess[], description: string): Promise<void> {
  await waitUntil(
    async () => {
      const counts = (await holdings(replicas)).map((owned) => owned.length);
      const writer = await state().findOne({ _id: "lease", expiresAt: { $gt: new Date() } });
      const spread = Math.max(...counts) - Math.min(...counts);
      return writer === null && counts.reduce((a, b) => a + b, 0) === PARTITIONS && spread <= 1;
    },
    { timeoutMs: 30_000, intervalMs: 200, description },
  );
}

/**
 * Partitions claimed by two replicas at once: one that `X` claims in two rounds of /readyz
 * answers and `Y` in the round between them (a hand-over between two answers is no overlap).
 */
async function sampleOwnership(done: () => boolean): Promise<string[]> {
  const overlaps = new Set<string>();
  const rounds: Map<number, number[]>[] = [];
  while (!done()) {
    const answers = await Promise.all(
      running.map(async (child) => [child.pid!, (await readiness(child))?.partitions] as const),
    );
    rounds.push(new Map(answers.flatMap(([pid, owned]) => (owned ? [[pid, owned] as const] : []))));
    const [first, between, last] = rounds.slice(-3);
    if (last)
      for (const [x, owned] of first!)
        for (const partition of owned.filter((p) => last.get(x)?.includes(p)))
          for (const [y, theirs] of between!)
            if (y !== x && theirs.includes(partition)) overlaps.add(`partition ${partition}: ${x} and ${y}`);
    await delay(100);
  }
  return [...overlaps];
}

/** `disturb` while the applications write; then the replicas catch up and everything is checked. */
async function underWriters(disturb: () => Promise<void>): Promise<void> {
  let disturbed = false;
  let settled = false;
  const writing = runWriters(writers, prng.fork(running.length), () => disturbed, 100);
  const overlaps = sampleOwnership(() => settled);
  try {
    await disturb();
  } catch (error) {
    // The writers' last writes end before the next test's start: two runs of one writer at
    // once would number two elements alike, a duplicate of the test's own making.
    settled = true;
    disturbed = true;
    await Promise.allSettled([writing, overlaps]);
    throw error;
  }
  disturbed = true;
  const { writes, failures } = await writing;
  const replicas = running.map((child) => ({ readiness: () => readiness(child) }));
  const problems = await settle(fixture.db, workloads, replicas, 30_000, PARTITIONS).finally(
    () => (settled = true),
  );
  const violations = await audit.violationsUpToNow();
  assert.deepEqual([...failures, ...(await overlaps), ...problems, ...violations], []);
  assert.ok(writes > 0, "the applications wrote");
}

/** The soak's documents, a first replica's sweep and stored position, then two more replicas. */
async function startThree(): Promise<void> {
  for (const workload of workloads) await workload.setUp(fixture.db);
  audit = await LeaseAudit.start(fixture.mongo.client, fixture.db, STATE);
  await startReplica();
  // The first start's sweep, then a stored position: the soak's writers start after it.
  await waitUntil(() => state().findOne({ _id: `changestream:${fixture.db.databaseName}` }), {
    timeoutMs: 30_000,
    description: "the first replica's stored position",
  });
  writers = writersOf(fixture.db, workloads, prng.fork(0));
  await startReplica();
  await startReplica();
  await sharedEvenly(running, "three replicas sharing the partitions");
}

void test("a paused replica's partitions are taken after leaseSeconds, and it shares again once resumed", async () => {
  await underWriters(async () => {
    const paused = running[2]!;
    paused.kill("SIGSTOP");
    await sharedEvenly(running.slice(0, 2), "the paused replica's partitions taken by the other two");
    paused.kill("SIGCONT");
    await sharedEvenly(running, "three replicas sharing again");
  });
});

void test("SIGTERM hands a replica's partitions over at once, and the others take them", async () => {
  await underWriters(async () => {
    const leaving = running[1]!;
    const [owned] = await holdings([leaving]);
    leaving.kill("SIGTERM");
    await new Promise((resolve) => leaving.once("exit", resolve));
    running.splice(1, 1);
    // Released (expired at once) or already taken: none left to expire after leaseSeconds.
    const left = await state()
      .find({ holder: { $regex: `:${leaving.pid}:` }, expiresAt: { $gt: new Date(0) } })
      .toArray();
    assert.ok(owned!.length > 0);
    assert.deepEqual(
      left.map((lease) => lease._id),
      [],
    );
    await sharedEvenly(running, "the other two taking its partitions");
  });
});

void test("a joining replica gets its share while the others keep theirs and run on", async () => {
  await underWriters(async () => {
    const others = [...running];
    const before = await holdings(others);
    await startReplica();
    await sharedEvenly(running, "the joining replica getting its share");
    const after = await holdings(others);
    // Only what the joiner needed moved: each of the others gave some up and took none.
    for (const [i, owned] of after.entries())
      assert.deepEqual(
        owned.filter((partition) => !before[i]!.includes(partition)),
        [],
        `replica ${i}`,
      );
    assert.ok(others.every((child) => child.exitCode === null && child.signalCode === null));
  });
});

void test("a killed replica's partitions are taken after leaseSeconds", async () => {
  await underWriters(async () => {
    const killed = running.shift()!;
    killed.kill("SIGKILL");
    await sharedEvenly(running, "the killed replica's partitions taken by the other two");
  });
});
