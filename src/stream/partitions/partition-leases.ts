// Keeps the leases of the partitions assigned to this replica: each round it heartbeats,
// computes the assignment from the live members and the leases' holders, takes or renews its
// own and hands over the others. docs/semantics.md, "Partitions"; docs/operations.md,
// "Partitions and rebalancing".
import type { Binary, ClientSession, Collection, Db, Document } from "mongodb";
import { LeaseLostError, TakeoverBlockedError } from "../../errors.js";
import type { Logger } from "../../ops/logger.js";
import type { CorrectionTarget } from "../../patterns/driver.js";
import type { Fence, Fencing } from "../lease/fencing.js";
import { LEASE_ID, WriterLease } from "../lease/lease.js";
import { sessionIdHex } from "../lease/session-pool.js";
import { assignPartitions, partitionsOwnedBy, type Owners } from "./assignment.js";
import { isMemberId, MEMBER_IDS, Membership, UNEXPIRED } from "./membership.js";
import { partitionOfTarget } from "./target-partition.js";

/** A partition's lease document `_id`: a writer lease of its own (lease.ts, `leaseId`). */
export const partitionLeaseId = (partition: number): string => `lease.partition.${partition}`;

const PARTITION_LEASE = /^lease\.partition\.(\d+)$/;

export interface PartitionLeasesOptions {
  /** The corrections' handle: the fence documents are written in their transactions. */
  db: Db;
  /** Where heartbeats, takeovers, renewals and releases go (WriterLeaseOptions.keeperDb); `db` when absent. */
  keeperDb?: Db;
  stateCollection: string;
  holder: string;
  leaseSeconds: number;
  partitions: number;
  /** The sessions this replica corrects on, fenced under each partition it takes. */
  sessionIds: () => Binary[];
  logger: Logger;
  /**
   * Called before partitions are handed over, and awaited: their in-flight corrections
   * commit and their positions are stored first.
   */
  beforeRelease?: (partitions: number[]) => Promise<void>;
  /** Called after a round that changed the partitions this replica holds. */
  onOwnedChange?: (owned: number[]) => void;
}

/**
 * The writer lease, the members' heartbeats and the partitions' leases, unexpired: a branch
 * each, which the `_id` index answers (the state collection also holds the copy ledger, which
 * no round should scan).
 */
export function rosterFilter(): Document {
  return {
    $or: [{ _id: LEASE_ID }, MEMBER_IDS, { _id: { $regex: PARTITION_LEASE.source } }],
    ...UNEXPIRED,
  };
}

interface Roster {
  writer: string | undefined;
  members: string[];
  owners: Owners;
  othersSessions: Binary[];
}

/** Each session once (a holder lists the same ones in every lease it holds). */
function uniqueSessions(sessions: readonly Binary[]): Binary[] {
  const byId = new Map(sessions.map((id) => [sessionIdHex(id), id]));
  return [...byId.values()];
}

export class PartitionLeases implements Fencing {
  private readonly membership: Membership;
  private readonly leaseDocs: Collection<{
    _id: string;
    holder: string;
    expiresAt: Date;
    sessions?: Binary[];
  }>;
  private readonly leases = new Map<number, WriterLease>();
  private lastOwned: number[] = [];
  /** owned()'s answer and the millisecond it was made in. */
  private ownedNow: { at: number; partitions: readonly number[] } | undefined;
  /** What the last round read; nothing before the first. */
  private roster: Roster = { writer: undefined, members: [], owners: new Map(), othersSessions: [] };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: PartitionLeasesOptions) {
    const keeperDb = options.keeperDb ?? options.db;
    this.membership = new Membership(keeperDb, options.stateCollection, options.holder, options.leaseSeconds);
    this.leaseDocs = keeperDb.collection(options.stateCollection);
  }

  /**
   * The partitions whose lease this replica holds now, by its own clock; ascending. Asked for
   * every event a stream reads and every target it dispatches: an answer holds for the rest of
   * its millisecond (a lease's `held` compares the clock's milliseconds), unless a lease changes.
   */
  owned(): number[] {
    const at = Date.now();
    if (this.ownedNow?.at !== at) {
      const partitions = [...this.leases]
        .flatMap(([partition, lease]) => (lease.held ? [partition] : []))
        .sort((a, b) => a - b);
      this.ownedNow = { at, partitions };
    }
    return [...this.ownedNow.partitions];
  }

  /** A lease was taken, renewed, lost or released: owned() answers afresh. */
  private leasesChanged(): void {
    this.ownedNow = undefined;
  }

  /** The fence of each partition among the targets': a batch commits only while all are held. */
  fencesFor(targets: readonly CorrectionTarget[], session: ClientSession): Fence[] {
    const partitions = new Set(targets.map((target) => partitionOfTarget(target, this.options.partitions)));
    return [...partitions]
      .sort((a, b) => a - b)
      .flatMap((partition) => this.heldLease(partition).fencesFor(targets, session));
  }

  private heldLease(partition: number): WriterLease {
    const lease = this.leases.get(partition);
    if (lease) return lease;
    throw new LeaseLostError("this replica does not hold the partition's lease", {
      holder: this.options.holder,
      partition,
      lease: partitionLeaseId(partition),
    });
  }

  /** Who holds the writer lease now, unexpired: while anyone does, no replica corrects by partition. */
  writerLeaseHolder(): Promise<string | undefined> {
    return this.membership.writer(LEASE_ID);
  }

  /** Whether the last round found the writer lease held by another replica, which then corrects every key. */
  get writerElsewhere(): boolean {
    const { writer } = this.roster;
    return writer !== undefined && writer !== this.options.holder;
  }

  /**
   * The sessions other replicas correct on, as their leases listed them at the last round:
   * their corrections' events are in shape, as this replica's own are (watch-pipeline.ts).
   */
  get othersSessions(): Binary[] {
    return this.roster.othersSessions;
  }

  /** Whether the last round found other live replicas: with none, this one works alone. */
  get othersLive(): boolean {
    return this.roster.members.some((member) => member !== this.options.holder);
  }

  /** How often a round runs: three heartbeats and renewals within a lease's lifetime. */
  get intervalMs(): number {
    return (this.options.leaseSeconds * 1000) / 3;
  }

  /** Runs a round now and then every intervalMs until stop(); rounds never overlap. */
  start(): void {
    if (this.timer) return;
    void this.roundOnce();
    this.timer = setInterval(() => void this.roundOnce(), this.intervalMs);
  }

  /** One round, unless one runs; failures are logged and the next round tries again. */
  roundOnce(): Promise<void> {
    this.running ??= this.round()
      .catch((err: unknown) => this.options.logger.warn({ err }, "partition leases round failed"))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Heartbeat, then: every partition handed over while another holds the writer lease; else
   * the assignment (every partition for the writer lease's holder), its own taken or renewed,
   * then what is no longer its own handed over.
   */
  async round(): Promise<void> {
    const { partitions, holder } = this.options;
    await this.membership.beat();
    this.roster = await this.readRoster();
    const { writer, members, owners } = this.roster;
    if (writer !== undefined && writer !== holder) return this.yieldToWriter(writer, members);
    // The writer lease's holder corrects every key: it holds every partition, each taken once
    // its holder handed it over or let it expire, so no correction under one overlaps its own.
    const mine =
      writer === holder
        ? Array.from({ length: partitions }, (_, partition) => partition)
        : partitionsOwnedBy(assignPartitions(partitions, [...members, holder], owners), holder);
    const givenAway = [...this.leases.keys()].filter((partition) => !mine.includes(partition));
    // Its own first, all at once: the hand-over waits for the partitions' work, which under
    // load can outlast a lease, and a round made of one request per partition can too.
    await this.takeOrRenewAll(mine);
    await this.release(givenAway);
    this.noteOwnedChange();
  }

  /**
   * Another holds the writer lease and corrects every key (a replica sweeping or alone, the
   * `sweep` command, a version before partitions): this one hands every partition over, after
   * their running work, and holds none until that lease is gone (docs/operations.md,
   * "Rolling upgrade").
   */
  private async yieldToWriter(writer: string, members: readonly string[]): Promise<void> {
    if (this.leases.size > 0 && !members.includes(writer))
      this.options.logger.warn({ writer }, "writer lease held by a replica without membership");
    await this.release([...this.leases.keys()]);
    this.noteOwnedChange();
  }

  /** Whether this replica holds every partition's lease now, by its own clock. */
  get holdsEvery(): boolean {
    return this.owned().length === this.options.partitions;
  }

  /**
   * In one read, unexpired by the server's clock: who holds the writer lease, the live
   * members, who holds each partition's lease, and the sessions the other holders' leases list.
   */
  private async readRoster(): Promise<Roster> {
    const docs = await this.leaseDocs
      .find(rosterFilter(), { projection: { holder: 1, sessions: 1 } })
      .toArray();
    const others = docs.filter((doc) => doc.holder !== this.options.holder && !isMemberId(doc._id));
    const owners = docs.flatMap(({ _id, holder }) => {
      const partition = PARTITION_LEASE.exec(_id)?.[1];
      return partition === undefined ? [] : [[Number(partition), holder] as const];
    });
    return {
      writer: docs.find((doc) => doc._id === LEASE_ID)?.holder,
      members: docs.filter((doc) => isMemberId(doc._id)).map((doc) => doc.holder),
      owners: new Map(owners),
      othersSessions: uniqueSessions(others.flatMap((doc) => doc.sessions ?? [])),
    };
  }

  /** Renews the partitions held at a term in one command, and tries to take each of the others. */
  private async takeOrRenewAll(partitions: readonly number[]): Promise<void> {
    const atTerm = partitions.filter((partition) => this.leases.get(partition)?.termHeld !== undefined);
    const renewal = WriterLease.renewTogether(atTerm.map((partition) => this.leases.get(partition)!));
    const others = partitions.filter((partition) => !atTerm.includes(partition));
    await settleAll([
      renewal.finally(() => atTerm.forEach((partition) => this.forgetIfLost(partition))),
      ...others.map((partition) => this.take(partition)),
    ]);
  }

  private async take(partition: number): Promise<void> {
    const lease = this.leases.get(partition) ?? this.newLease(partition);
    this.leases.set(partition, lease);
    try {
      // Held by a replica that has not handed it over yet: false now, taken at a later round.
      await lease.acquireOrRenew();
      this.forgetIfLost(partition);
    } catch (err) {
      if (!(err instanceof TakeoverBlockedError)) throw err;
      this.options.logger.warn({ err, partition }, err.message);
    }
  }

  /**
   * After a lease's renewal or takeover answered: drops the partition if this replica has no
   * term of it (a later round tries to take it), and lets owned() answer afresh either way.
   */
  private forgetIfLost(partition: number): void {
    if (this.leases.get(partition)?.termHeld === undefined) this.leases.delete(partition);
    this.leasesChanged();
  }

  private newLease(partition: number): WriterLease {
    const { db, keeperDb, stateCollection, holder, leaseSeconds, sessionIds } = this.options;
    return new WriterLease(db, stateCollection, holder, leaseSeconds, {
      sessionIds,
      keeperDb,
      leaseId: partitionLeaseId(partition),
      fencesOffWriter: true,
    });
  }

  /** Lets the partitions' work finish, then their leases go at once to whoever takes them. */
  private async release(partitions: number[]): Promise<void> {
    if (partitions.length === 0) return;
    const kept = this.owned().filter((partition) => !partitions.includes(partition));
    await this.renewingWhile(kept, () => this.options.beforeRelease?.(partitions));
    for (const partition of partitions) {
      await this.leases.get(partition)?.release();
      this.leases.delete(partition);
      this.leasesChanged();
    }
    this.options.logger.info({ partitions }, "partitions handed over");
  }

  /**
   * Runs `work` (a hand-over's wait for the partitions' work) while renewing the `kept`
   * partitions each interval, as rounds would: no round runs until it ends. Those handed over
   * are not renewed: work that outlasts their lease is fenced off, and their taker waits no
   * longer than a lease.
   */
  private async renewingWhile(kept: number[], work: () => Promise<void> | undefined): Promise<void> {
    let renewal = Promise.resolve();
    const renewKept = () => {
      renewal = renewal
        .then(() => this.takeOrRenewAll(kept))
        .catch((err: unknown) => this.options.logger.warn({ err }, "partition leases renewal failed"));
    };
    const timer = setInterval(renewKept, this.intervalMs);
    try {
      await work();
    } finally {
      clearInterval(timer);
      await renewal;
    }
  }

  private noteOwnedChange(): void {
    const owned = this.owned();
    if (owned.join() === this.lastOwned.join()) return;
    this.lastOwned = owned;
    this.options.logger.info({ partitions: owned }, "partitions owned");
    this.options.onOwnedChange?.(owned);
  }

  /** Stops the rounds, hands every partition over (after their work) and leaves; idempotent. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.release([...this.leases.keys()]);
    await this.membership.leave();
    this.noteOwnedChange();
  }
}

/** Waits for every one of `work`, then throws the first failure, if any. */
async function settleAll(work: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}
