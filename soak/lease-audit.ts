// "Never two writers", observed from outside: the soak watches the database's change stream
// for the leases' writes (the writer lease and each partition's) and for every transaction
// (only the sidecars' corrections and takeovers run in one). Each lease lists its holder's
// session ids, so a correction's lsid names its replica, and the fence documents it wrote name
// the leases it committed under. In commit order, each lease's term only grows, and every
// correction must hold, when it commits, each lease it fenced on (neither taken over by
// another replica nor released since). Which partitions its targets are in is the sidecar's
// call (a chunk an application created is its own key, yet its correction writes its book's
// documents: docs/semantics.md, "Partitions"), so the fences it wrote stand for them.
import type { Binary, ChangeStream, Db, Document, MongoClient, Timestamp } from "mongodb";

const MARKER_COLLECTION = "soak_marker";

const WRITER_LEASE = "lease";
/** A lease document: the writer lease, or a partition's. */
const LEASE_DOCUMENT = /^lease(\.partition\.(\d+))?$/;
/** A fence document: `<lease id>.fence.<session>`. */
const FENCE_DOCUMENT = /^(lease(?:\.partition\.\d+)?)\.fence\.[0-9a-f]+$/;

interface LeaseEvent {
  kind: "lease";
  lease: string;
  term?: number;
  holder?: string;
  /** A release: the holder set its expiry in the past, so that another takes it at once. */
  released: boolean;
}

interface CommitEvent {
  kind: "commit";
  session: string;
  collections: string[];
  /** The leases whose fence documents the transaction wrote. */
  fences: string[];
}

/** A holder's standing on one lease, as the events so far show it. */
interface LeaseStanding {
  term: number;
  holder?: string;
  released: boolean;
}

/** Whether a change event is a write of a lease document (an aggregation expression). */
const LEASE_EVENT: Document = {
  $cond: [
    { $eq: [{ $type: "$documentKey._id" }, "string"] },
    { $regexMatch: { input: "$documentKey._id", regex: LEASE_DOCUMENT.source } },
    false,
  ],
};

const sessionKey = (id: Binary): string => Buffer.from(id.buffer).toString("hex");
/** Which transaction an event belongs to; undefined outside one. */
const transactionKey = (event: Document): string | undefined =>
  event.txnNumber === undefined
    ? undefined
    : `${sessionKey(event.lsid.id as Binary)}:${String(event.txnNumber)}`;

const isEpoch = (value: unknown): boolean => value instanceof Date && value.getTime() === 0;

/**
 * The audit's judgement over change events, fed in commit order: a transaction's events
 * arrive together, as its commit's oplog entry holds them.
 */
export class LeaseLedger {
  private readonly events: (LeaseEvent | CommitEvent)[] = [];
  /** Session id -> the holder that listed it in a lease. */
  private readonly sessionHolders = new Map<string, string>();
  private pending: { key: string; events: Document[] } | undefined;

  constructor(private readonly stateCollection: string) {}

  /** Takes one change event; events of one transaction are judged together. */
  record(event: Document): void {
    const key = transactionKey(event);
    if (key !== undefined && key === this.pending?.key) {
      this.pending.events.push(event);
      return;
    }
    this.flush();
    if (key !== undefined) this.pending = { key, events: [event] };
    else if (this.leaseIdOf(event) !== undefined) this.recordLease(event);
  }

  /** Judges the transaction still open (call once every event was recorded). */
  flush(): void {
    const transaction = this.pending;
    this.pending = undefined;
    if (!transaction) return;
    const leaseWrites = transaction.events.filter((event) => this.leaseIdOf(event) !== undefined);
    // A takeover is one transaction: its other writes (the fence documents) belong to it.
    if (leaseWrites.length > 0) for (const event of leaseWrites) this.recordLease(event);
    else this.events.push(this.commitOf(transaction.events));
  }

  private leaseIdOf(event: Document): string | undefined {
    const id: unknown = event.documentKey?._id;
    if ((event.ns as { coll?: string }).coll !== this.stateCollection || typeof id !== "string")
      return undefined;
    return LEASE_DOCUMENT.test(id) ? id : undefined;
  }

  private recordLease(event: Document): void {
    const changed: Document | undefined =
      event.operationType === "update" ? event.updateDescription.updatedFields : event.fullDocument;
    this.events.push({
      kind: "lease",
      lease: this.leaseIdOf(event)!,
      term: changed?.term as number | undefined,
      holder: changed?.holder as string | undefined,
      released: changed?.term === undefined && isEpoch(changed?.expiresAt),
    });
    // The looked-up document may be a later version; its holder and sessions still belong together.
    const current = event.fullDocument as Document | undefined;
    for (const id of (current?.sessions as Binary[] | undefined) ?? [])
      this.sessionHolders.set(sessionKey(id), current!.holder as string);
  }

  private commitOf(events: Document[]): CommitEvent {
    const fences = new Set<string>();
    for (const event of events) {
      const id: unknown = event.documentKey?._id;
      const fence = this.isState(event) && typeof id === "string" && FENCE_DOCUMENT.exec(id);
      if (fence) fences.add(fence[1]!);
    }
    return {
      kind: "commit",
      session: sessionKey(events[0]!.lsid.id as Binary),
      collections: [...new Set(events.map((event) => (event.ns as { coll: string }).coll))],
      fences: [...fences].sort(),
    };
  }

  private isState(event: Document): boolean {
    return (event.ns as { coll?: string }).coll === this.stateCollection;
  }

  /** How many terms began over all leases: each first holder's, then one per takeover. */
  get terms(): number {
    return this.events.filter((event) => event.kind === "lease" && event.term !== undefined).length;
  }

  /** How many terms of the writer lease began. */
  get writerTerms(): number {
    return this.events.filter(
      (event) => event.kind === "lease" && event.lease === WRITER_LEASE && event.term !== undefined,
    ).length;
  }

  violations(): string[] {
    this.flush();
    const problems: string[] = [];
    const standings = new Map<string, LeaseStanding>();
    for (const event of this.events) {
      if (event.kind === "lease") problems.push(...this.leaseChanged(standings, event));
      else problems.push(...this.commitViolations(standings, event));
    }
    return problems;
  }

  private leaseChanged(standings: Map<string, LeaseStanding>, event: LeaseEvent): string[] {
    const standing = standings.get(event.lease) ?? { term: 0, released: false };
    const problems =
      event.term !== undefined && event.term <= standing.term
        ? [`${event.lease}: term went from ${standing.term} to ${event.term}`]
        : [];
    standings.set(event.lease, {
      term: event.term ?? standing.term,
      holder: event.holder ?? standing.holder,
      released: event.term === undefined ? standing.released || event.released : false,
    });
    return problems;
  }

  private commitViolations(standings: Map<string, LeaseStanding>, commit: CommitEvent): string[] {
    const writer = this.sessionHolders.get(commit.session) ?? `unknown session ${commit.session}`;
    const what = `a transaction on ${commit.collections.join(", ")} by ${writer}`;
    if (commit.fences.length === 0) return [`${what} committed without any lease's fence`];
    return commit.fences.flatMap((lease) => {
      const standing = standings.get(lease);
      if (standing?.holder !== writer)
        return [`${what} committed under ${lease} while ${standing?.holder} held term ${standing?.term}`];
      return standing.released ? [`${what} committed under ${lease} after releasing it`] : [];
    });
  }
}

export class LeaseAudit {
  private readonly ledger: LeaseLedger;
  private readonly stream: ChangeStream;
  private readonly reading: Promise<void>;
  private markerSeen = false;
  /** Checkpoint markers written and not yet read, by `_id`. */
  private readonly checkpoints = new Map<string, () => void>();

  /** Starts watching from now: from the cluster time of a write made before it returns. */
  static async start(client: MongoClient, db: Db, stateCollection: string): Promise<LeaseAudit> {
    const session = client.startSession();
    try {
      await db.collection<{ _id: string }>(MARKER_COLLECTION).insertOne({ _id: "start" }, { session });
      return new LeaseAudit(db, stateCollection, session.operationTime!);
    } finally {
      await session.endSession();
    }
  }

  private constructor(
    private readonly db: Db,
    stateCollection: string,
    startAtOperationTime: Timestamp,
  ) {
    this.ledger = new LeaseLedger(stateCollection);
    this.stream = db.watch(
      [
        {
          $match: {
            $or: [
              { "ns.coll": stateCollection, "documentKey._id": { $regex: LEASE_DOCUMENT.source } },
              { txnNumber: { $exists: true } },
              { "ns.coll": MARKER_COLLECTION },
            ],
          },
        },
        // Only a lease's own images: a correction's post-image of a ~14 MiB batch would put its
        // event past the 16 MiB limit, and the audit needs no more than its lsid and keys.
        {
          $project: {
            lsid: 1,
            txnNumber: 1,
            ns: 1,
            documentKey: 1,
            operationType: 1,
            fullDocument: { $cond: [LEASE_EVENT, "$fullDocument", "$$REMOVE"] },
            updateDescription: { $cond: [LEASE_EVENT, "$updateDescription", "$$REMOVE"] },
          },
        },
      ],
      { fullDocument: "updateLookup", startAtOperationTime },
    );
    this.reading = this.read();
  }

  private async read(): Promise<void> {
    for await (const event of this.stream as AsyncIterable<Document>) {
      if ((event.ns as { coll?: string }).coll === MARKER_COLLECTION) {
        const id = event.documentKey._id as string;
        this.markerSeen = id === "end";
        if (this.markerSeen) return;
        this.checkpoints.get(id)?.();
        continue;
      }
      this.ledger.record(event);
    }
  }

  /** Reads the stream up to now (a marker written after everything else), leaving it open: the violations so far. */
  async violationsUpToNow(): Promise<string[]> {
    const id = `checkpoint.${this.checkpoints.size}`;
    const read = new Promise<void>((resolve) => this.checkpoints.set(id, resolve));
    await this.db.collection<{ _id: string }>(MARKER_COLLECTION).insertOne({ _id: id });
    await read;
    return this.ledger.violations();
  }

  /** Reads the stream up to now (a marker written after everything else), then closes it. */
  async finish(): Promise<void> {
    await this.db.collection<{ _id: string }>(MARKER_COLLECTION).insertOne({ _id: "end" });
    await this.reading;
    await this.stream.close();
  }

  /** Closes the stream without reading on: a run that failed before finish() must not leave it reading. */
  async close(): Promise<void> {
    await this.stream.close();
    await this.reading.catch(() => undefined);
  }

  /** How many terms of the writer lease began: the first holder's, then one per takeover. */
  get terms(): number {
    return this.ledger.writerTerms;
  }

  /** How many terms of partition leases began: each partition's first, then its takeovers. */
  get partitionTerms(): number {
    return this.ledger.terms - this.ledger.writerTerms;
  }

  violations(): string[] {
    const problems = this.ledger.violations();
    if (!this.markerSeen) problems.unshift("the audit's change stream ended before reading everything");
    return problems;
  }
}
