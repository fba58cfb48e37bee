// Real processes: three sidecars (the CLI) share the partitions evenly; one is SIGKILLed and
// the others take its partitions after leaseSeconds. docs/operations.md, "Partitions and
// rebalancing".
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { test } from "node:test";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useCliReplicas } from "../../../support/cli-replicas.js";
import { allPurchasers, insertBook, isBookCorrected, review, users } from "../../../support/harness.js";

const PARTITIONS = 6;
const { fixture, start } = useCliReplicas("three_replicas");
const startReplica = () => start(`partitions: ${PARTITIONS}\n`);

const state = () =>
  fixture.db.collection<{ _id: string; holder: string; expiresAt: Date }>("pattern_sidecar_state");

/** Partitions held per replica (by pid), from the unexpired partition leases; and whether `lease` is held. */
async function holdings(
  replicas: readonly ChildProcess[],
): Promise<{ counts: number[]; writerHeld: boolean }> {
  const now = new Date();
  const leases = await state()
    .find({ _id: { $regex: "^lease\\.partition\\.\\d+$" }, expiresAt: { $gt: now } })
    .toArray();
  const counts = replicas.map(
    (child) => leases.filter((lease) => lease.holder.includes(`:${child.pid}:`)).length,
  );
  const writer = await state().findOne({ _id: "lease", expiresAt: { $gt: now } });
  return { counts, writerHeld: writer !== null };
}

async function sharedEvenly(replicas: readonly ChildProcess[], description: string): Promise<void> {
  await waitUntil(
    async () => {
      const { counts, writerHeld } = await holdings(replicas);
      const spread = Math.max(...counts) - Math.min(...counts);
      return !writerHeld && counts.reduce((a, b) => a + b, 0) === PARTITIONS && spread <= 1;
    },
    { timeoutMs: 30_000, intervalMs: 200, description },
  );
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function writeAllPatterns(from: number): Promise<void> {
  for (const id of range(from, from + 6)) await insertBook(fixture.db, id, 70);
  const date = new Date("2024-01-01T00:00:00.000Z");
  await fixture.db
    .collection("trades")
    .insertMany(range(from, from + 6).map((id) => ({ customerId: `c${id}`, ticker: `T${id}`, date })));
  const day = 86_400_000;
  for (const id of range(from, from + 6))
    await fixture.db.collection("products").insertOne({
      _id: id as never,
      name: `p${id}`,
      reviews: range(0, 12).map((i) => review(id * 100 + i, new Date(Date.UTC(2020, 0, 1) + i * day))),
    });
}

async function converged(from: number): Promise<boolean> {
  for (const id of range(from, from + 6)) if (!(await isBookCorrected(fixture.db, id, 70))) return false;
  const loose = await fixture.db.collection("trades").countDocuments({ ticker: { $exists: true } });
  if (loose > 0) return false;
  const products = await fixture.db
    .collection<Document>("products")
    .find({ _id: { $in: range(from, from + 6) as never[] } })
    .toArray();
  return products.every((product) => (product.reviews as unknown[]).length === 10);
}

async function assertNothingLostOrDuplicated(from: number): Promise<void> {
  for (const id of range(from, from + 6)) {
    assert.deepEqual(await allPurchasers(fixture.db, id), users(0, 70), `book ${id}`);
    assert.equal(await fixture.db.collection("extra_sales").countDocuments({ book_id: id }), 1, `book ${id}`);
  }
  const buckets = await fixture.db.collection<Document>("trades").find({}).toArray();
  const folded = buckets.flatMap((bucket) =>
    (bucket.history as Document[]).map((trade) => trade.ticker as string),
  );
  for (const id of range(from, from + 6))
    assert.equal(folded.filter((t) => t === `T${id}`).length, 1, `trade T${id}`);
}

void test("three replicas share the partitions; a killed one's are taken and writes converge", async () => {
  const first = await startReplica();
  await insertBook(fixture.db, 1, 70); // the first start's sweep and a stored position
  await waitUntil(() => isBookCorrected(fixture.db, 1, 70), { timeoutMs: 30_000, description: "book 1" });
  const replicas = [first, await startReplica(), await startReplica()];
  await sharedEvenly(replicas, "three replicas sharing the partitions");

  await writeAllPatterns(10);
  await waitUntil(() => converged(10), { timeoutMs: 30_000, description: "writes converged on three" });
  await assertNothingLostOrDuplicated(10);

  const [killed, ...survivors] = replicas as [ChildProcess, ChildProcess, ChildProcess];
  killed.kill("SIGKILL");
  await writeAllPatterns(20);
  await sharedEvenly(survivors, "the killed replica's partitions taken by the other two");
  await waitUntil(() => converged(20), { timeoutMs: 30_000, description: "writes converged on two" });
  await assertNothingLostOrDuplicated(10);
  await assertNothingLostOrDuplicated(20);
  for (const child of survivors) child.kill("SIGTERM");
});
