// The bucket pattern under load: customers whose trades arrive through the seed's guarded
// upsert, customers whose trades a naive application pushes in batches into their newest
// bucket (past 10, sometimes without `$inc`), and customers still written one trade per
// document (loose entries, which the bucket rule folds). One style per customer: a naive
// push beside the seed's upsert orders trades by a documented guess.
import type { Collection, Db, Document } from "mongodb";
import { seedUpsert } from "../test/support/seed-upsert.js";
import type { Prng } from "./prng.js";
import {
  exactlyOnce,
  inOrder,
  nextBatch,
  writeUnlessTooLarge,
  type Batch,
  type Workload,
  type Writer,
} from "./workload.js";

const THRESHOLD = 10;
const SEED_CUSTOMERS = [201, 202, 203];
const NAIVE_CUSTOMERS = [301, 302, 303];
const LOOSE_CUSTOMERS = [401, 402];
const CUSTOMERS = [...SEED_CUSTOMERS, ...NAIVE_CUSTOMERS, ...LOOSE_CUSTOMERS];
const MINUTE = 60_000;

interface Bucket {
  _id: string;
  customerId: number;
  count: number;
  history: Document[];
}

const trades = (db: Db): Collection<Bucket> => db.collection<Bucket>("trades");

// A minute apart, so that every trade may start a bucket of its own second.
function trade(customerId: number, i: number, element: (id: string) => string): Document {
  return {
    type: i % 2 ? "sell" : "buy",
    ticker: element(`${customerId}-${i}`),
    qty: i + 1,
    date: new Date(Date.UTC(2023, 9, 26) + i * MINUTE),
  };
}

// Into the newest bucket, chosen and written in one findOneAndUpdate. A find of the newest
// then an update by its _id is the application's own race: a split committing between the
// two makes a newer bucket, and the push lands behind it (docs/semantics.md).
async function naivePush(db: Db, customerId: number, batch: Document[], withCount: boolean): Promise<void> {
  const update: Document = { $push: { history: { $each: batch } } };
  if (withCount) update.$inc = { count: batch.length };
  const newest = await trades(db).findOneAndUpdate({ _id: new RegExp(`^${customerId}_`) as never }, update, {
    sort: { _id: -1 },
  });
  if (newest !== null) return;
  const _id = `${customerId}_${(batch[0]!.date as Date).getTime() / 1000}`;
  await trades(db).insertOne({ _id, customerId, count: batch.length, history: batch });
}

/** A trade in a large batch (nextBatch): a few thousand of them make ~14 MiB. */
const TRADE_BYTES = 2800;

function customerWriter(
  customerId: number,
  written: string[],
  write: (entries: Document[]) => Promise<void>,
  nextOf: () => Batch,
): Writer {
  return {
    name: `customer ${customerId}`,
    async writeOnce() {
      const next = nextOf();
      const { length, element } = next;
      const batch = Array.from({ length }, (_, k) => trade(customerId, written.length + k, element));
      if (!(await writeUnlessTooLarge(next, () => write(batch)))) return 0;
      written.push(...batch.map((entry) => entry.ticker as string));
      return batch.length;
    },
  };
}

const one = (): Batch => ({ length: 1, element: (id) => id, large: false });

function writerFor(db: Db, customerId: number, written: string[], prng: Prng): Writer {
  if (SEED_CUSTOMERS.includes(customerId))
    return customerWriter(
      customerId,
      written,
      ([entry]) => seedUpsert(trades(db) as never, customerId, entry!),
      one,
    );
  if (NAIVE_CUSTOMERS.includes(customerId))
    return customerWriter(
      customerId,
      written,
      (batch) => naivePush(db, customerId, batch, prng.int(0, 1) === 1),
      () => nextBatch(prng, TRADE_BYTES),
    );
  return customerWriter(
    customerId,
    written,
    async ([entry]) => void (await db.collection("trades").insertOne({ ...entry, customerId })),
    one,
  );
}

async function customerViolations(db: Db, customerId: number, written: string[]): Promise<string[]> {
  const buckets = await trades(db)
    .find({ _id: new RegExp(`^${customerId}_`) as never })
    .sort({ _id: 1 })
    .toArray();
  const problems: string[] = [];
  for (const bucket of buckets) {
    const size = Array.isArray(bucket.history) ? bucket.history.length : NaN;
    if (!(size <= THRESHOLD) || bucket.count !== size)
      problems.push(`bucket ${bucket._id}: count ${bucket.count}, ${size} entries (at most ${THRESHOLD})`);
    if (bucket.customerId !== customerId)
      problems.push(`bucket ${bucket._id}: customerId ${bucket.customerId}`);
  }
  const loose = await db.collection("trades").countDocuments({ customerId, history: { $exists: false } });
  if (loose > 0) problems.push(`customer ${customerId}: ${loose} loose trades left unfolded`);
  const found = buckets.flatMap((bucket) => bucket.history.map((entry) => entry.ticker as string));
  return [
    ...problems,
    ...exactlyOnce(`customer ${customerId}`, written, found),
    ...inOrder(`customer ${customerId} (buckets by _id)`, written, found),
  ];
}

export function bucketWorkload(): Workload {
  const ledger = new Map<number, string[]>(CUSTOMERS.map((customerId) => [customerId, []]));
  return {
    async setUp() {},
    writers(db, prng) {
      return CUSTOMERS.map((customerId) =>
        writerFor(db, customerId, ledger.get(customerId)!, prng.fork(customerId)),
      );
    },
    async violations(db) {
      const problems: string[] = [];
      for (const [customerId, written] of ledger)
        problems.push(...(await customerViolations(db, customerId, written)));
      return problems;
    },
  };
}
