// The soak's lease audit (soak/lease-audit.ts) over made-up change events: it accepts commits
// under the leases their sessions hold, and catches a replica committing on a partition it lost.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Binary, type Document } from "mongodb";
import { LeaseLedger } from "../../soak/lease-audit.js";

const STATE = "pattern_sidecar_state";
const sessions = { a: new Binary(Buffer.alloc(16, 0xa)), b: new Binary(Buffer.alloc(16, 0xb)) };
type Replica = keyof typeof sessions;
const hex = (replica: Replica) => Buffer.from(sessions[replica].buffer).toString("hex");
let txnNumber = 0;

const inTransaction = (replica: Replica, events: Document[]): Document[] => {
  const txn = ++txnNumber;
  return events.map((event) => ({ ...event, lsid: { id: sessions[replica] }, txnNumber: txn }));
};

const takeover = (replica: Replica, lease: string, term: number): Document[] =>
  inTransaction(replica, [
    {
      operationType: "update",
      ns: { coll: STATE },
      documentKey: { _id: lease },
      updateDescription: { updatedFields: { holder: replica, term } },
      fullDocument: { _id: lease, holder: replica, term, sessions: [sessions[replica]] },
    },
    { operationType: "insert", ns: { coll: STATE }, documentKey: { _id: `${lease}.fence.${hex(replica)}` } },
  ]);

const release = (lease: string): Document[] => [
  {
    operationType: "update",
    ns: { coll: STATE },
    documentKey: { _id: lease },
    updateDescription: { updatedFields: { expiresAt: new Date(0) } },
  },
];

/** A correction updating book `book` under the fence of `lease`. */
const correction = (replica: Replica, lease: string, book: number): Document[] =>
  inTransaction(replica, [
    { operationType: "update", ns: { coll: STATE }, documentKey: { _id: `${lease}.fence.${hex(replica)}` } },
    {
      operationType: "update",
      ns: { coll: "sales" },
      documentKey: { _id: book },
      fullDocument: { _id: book, customers_purchased: [] },
    },
  ]);

function audit(...batches: Document[][]): string[] {
  const ledger = new LeaseLedger(STATE);
  for (const event of batches.flat()) ledger.record(event);
  return ledger.violations();
}

void test("commits under the writer lease and under held partitions pass", () => {
  assert.deepEqual(
    audit(
      takeover("a", "lease", 1),
      correction("a", "lease", 3),
      takeover("a", "lease.partition.3", 1),
      takeover("b", "lease.partition.4", 1),
      correction("b", "lease.partition.4", 4),
      correction("a", "lease.partition.3", 3),
    ),
    [],
  );
});

void test("a late commit by the replica that lost the partition is a violation", () => {
  const problems = audit(
    takeover("a", "lease.partition.3", 1),
    correction("a", "lease.partition.3", 3),
    takeover("b", "lease.partition.3", 2),
    correction("a", "lease.partition.3", 3),
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /by a committed under lease\.partition\.3 while b held term 2/);
});

void test("a commit after the partition was handed over is a violation", () => {
  const problems = audit(
    takeover("a", "lease.partition.3", 1),
    release("lease.partition.3"),
    correction("a", "lease.partition.3", 3),
  );
  assert.deepEqual(problems.length, 1);
  assert.match(problems[0]!, /after releasing it/);
});

void test("a term that does not grow is a violation", () => {
  const problems = audit(takeover("a", "lease.partition.3", 2), takeover("b", "lease.partition.3", 2));
  assert.deepEqual(problems, ["lease.partition.3: term went from 2 to 2"]);
});
