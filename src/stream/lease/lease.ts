// The writer lease: at most one replica corrects documents at a time. The lease is a
// document in the state collection, `{_id: "lease", holder, term, expiresAt, sessions}`.
// Expiry is the server's time ($$NOW), never a replica's clock. A replica takes the lease
// over only once it has expired; every takeover bumps `term` and then kills the sessions
// the previous holder listed (killSessions), which aborts any transaction it left open: a
// leader killed or paused inside a correction can neither block the applications' writes
// until the server reaps its transaction nor commit once another replica leads. Every
// correction also checks `{holder: me, term: myTerm}` inside its own transaction. Where the
// server refuses killSessions, a takeover either keeps retrying (never leading unfenced) or,
// if configured, holds the lease without writing until takeoverWaitSeconds (the server's
// transaction lifetime and a margin) have passed since the previous lease expired: by then
// the server has aborted whatever the previous leader left open.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { hostname } from "node:os";
import {
  MongoServerError,
  type Binary,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
} from "mongodb";
import { classify, FencingRefusedError, LeaseLostError } from "../../errors.js";
import { CODE } from "../../mongodb-codes.js";
import type { Write } from "../../patterns/plan.js";

export const LEASE_ID = "lease";

/**
 * How long a replica counts the lease held after asking to renew it, as a share of its
 * lifetime: the rest is a margin for the clocks of the replica and of the server.
 */
const HELD_SHARE = 0.8;
const heldMs = (leaseSeconds: number) => leaseSeconds * 1000 * HELD_SHARE;

/**
 * The options of the lease's own client (WriterLeaseOptions.keeperDb): a small pool, and no
 * command waiting for its reply longer than a renewal could still count. Without a socket
 * timeout, a reply that does not come (a primary that hangs, a connection a firewall dropped
 * in silence, which TCP keepalive notices only after minutes) leaves the renewal waiting as
 * long, and every renewal after it, as they never overlap; timed out, the connection is
 * closed and the next renewal takes a new one.
 */
export function leaseClientOptions(leaseSeconds: number): { maxPoolSize: number; socketTimeoutMS: number } {
  return { maxPoolSize: 2, socketTimeoutMS: heldMs(leaseSeconds) };
}

interface LeaseDocument {
  _id: string;
  holder: string;
  term: number;
  expiresAt: Date;
  /** The holder's sessions (lsid ids), for the next holder to kill. */
  sessions: Binary[];
  /** At a takeover: the previous holder's sessions, still to be killed. */
  previousSessions?: Binary[];
  /** At a takeover: when the previous holder's lease expired. */
  previousExpiresAt?: Date;
}

/** What a takeover does when the server refuses killSessions (the config's keys of that name). */
export interface FencingOptions {
  killSessionsRefused: "retry" | "waitTransactionLifetime";
  takeoverWaitSeconds: number;
}

const RETRY_ONLY: FencingOptions = { killSessionsRefused: "retry", takeoverWaitSeconds: 90 };

export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export interface WriterLeaseOptions {
  /** The sessions this replica corrects on; a takeover kills the previous holder's. */
  sessionIds?: () => Binary[];
  /**
   * Where takeovers, renewals and releases go: a client of its own (leaseClientOptions), so
   * that a renewal never waits for a connection behind the corrections it protects. The
   * fence stays on `db`, inside the correction's transaction. `db` itself when absent.
   */
  keeperDb?: Db;
  /** What a takeover does where the server refuses killSessions; retry when absent. */
  fencing?: FencingOptions;
}

export class WriterLease {
  private readonly keeperDb: Db;
  /** On the keeper's client: takeover, renewal, release. */
  private readonly leases: Collection<LeaseDocument>;
  /** On the corrections' client: the fence, on their sessions. */
  private readonly fenced: Collection<LeaseDocument>;
  private readonly sessionIds: () => Binary[];
  private readonly fencing: FencingOptions;
  private term: number | undefined;
  /** Local deadline: past it we stop writing even if the database was not reachable to tell us. */
  private heldUntil = 0;

  constructor(
    db: Db,
    stateCollection: string,
    readonly holder: string,
    private readonly leaseSeconds: number,
    options: WriterLeaseOptions = {},
  ) {
    this.keeperDb = options.keeperDb ?? db;
    this.leases = this.keeperDb.collection<LeaseDocument>(stateCollection);
    this.fenced = db.collection<LeaseDocument>(stateCollection);
    this.sessionIds = options.sessionIds ?? (() => []);
    this.fencing = options.fencing ?? RETRY_ONLY;
  }

  /** The term this replica holds the lease at, as far as it knows, even past its local margin. */
  get termHeld(): number | undefined {
    return this.term;
  }

  /** Whether this replica may write now, by its own clock (with a safety margin). */
  get held(): boolean {
    return this.term !== undefined && Date.now() < this.heldUntil;
  }

  /**
   * Renews the lease if held, takes it over if free or expired; returns whether it is held.
   * `signal` (a stop) ends a takeover's wait without writing: the lease is then not held.
   */
  async acquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    let requestedAt = Date.now();
    let term: number | undefined;
    if (this.term !== undefined) term = await this.renew();
    else {
      const taken = await this.takeOver(signal);
      term = taken?.term;
      if (taken) requestedAt = taken.renewedAt;
    }
    this.term = term;
    // Count from before the request: the database may have applied it at any point since.
    this.heldUntil = term === undefined ? 0 : requestedAt + heldMs(this.leaseSeconds);
    return this.held;
  }

  /** The new expiry, by the server's clock. */
  private expiry(): Document {
    return { $add: ["$$NOW", this.leaseSeconds * 1000] };
  }

  private async renew(): Promise<number | undefined> {
    const result = await this.leases.updateOne({ _id: LEASE_ID, holder: this.holder, term: this.term }, [
      { $set: { expiresAt: this.expiry(), sessions: { $literal: this.sessionIds() } } },
    ]);
    return result.matchedCount === 1 ? this.term : undefined;
  }

  /**
   * Takes the lease when it is absent or expired (by $$NOW), in one upsert: when it is held,
   * the upsert's insert collides with it on `_id`. Then kills the previous holder's sessions.
   */
  private async takeOver(signal?: AbortSignal): Promise<{ term: number; renewedAt: number } | undefined> {
    const requestedAt = Date.now();
    const taken = await this.takeOverDocument();
    if (!taken) return undefined;
    const waitMs = await this.fencePrevious(taken);
    if (waitMs <= 0) return { term: taken.term, renewedAt: requestedAt };
    return this.holdWithoutWriting(taken.term, waitMs, signal);
  }

  private async takeOverDocument(): Promise<LeaseDocument | undefined> {
    let taken: LeaseDocument | null;
    try {
      taken = await this.leases.findOneAndUpdate(
        { _id: LEASE_ID, $expr: { $lte: ["$expiresAt", "$$NOW"] } },
        [
          {
            $set: {
              holder: this.holder,
              term: { $add: [{ $ifNull: ["$term", 0] }, 1] },
              expiresAt: this.expiry(),
              // Kept until killed: a takeover that failed half-way must not forget them.
              previousSessions: {
                $concatArrays: [{ $ifNull: ["$previousSessions", []] }, { $ifNull: ["$sessions", []] }],
              },
              previousExpiresAt: "$expiresAt",
              sessions: { $literal: this.sessionIds() },
            },
          },
        ],
        { upsert: true, returnDocument: "after" },
      );
    } catch (error) {
      if (error instanceof MongoServerError && error.code === CODE.DuplicateKey) return undefined;
      throw error;
    }
    return taken ?? undefined;
  }

  /**
   * Before this replica writes anything: a transaction the previous holder left open must
   * abort now, not commit later. Killing sessions that no longer exist is a no-op. Returns
   * how long to wait before writing: 0 once they are killed; when the server refuses
   * killSessions and waiting is allowed, what remains of the transaction lifetime after the
   * previous lease's expiry (measured from the takeover, by the server's clock).
   */
  private async fencePrevious(taken: LeaseDocument): Promise<number> {
    const previous = taken.previousSessions ?? [];
    if (previous.length === 0) return 0;
    try {
      await this.keeperDb.admin().command({ killSessions: previous.map((id) => ({ id })) });
    } catch (error) {
      if (classify(error) !== "fatal") throw error;
      return this.waitInsteadOfKilling(taken, error);
    }
    await this.forgetPreviousSessions(taken.term);
    return 0;
  }

  private async forgetPreviousSessions(term: number): Promise<void> {
    await this.leases.updateOne({ _id: LEASE_ID, term }, { $unset: { previousSessions: "" } });
  }

  private async waitInsteadOfKilling(taken: LeaseDocument, refusal: unknown): Promise<number> {
    const context = { holder: this.holder, term: taken.term };
    if (this.fencing.killSessionsRefused !== "waitTransactionLifetime") {
      throw new FencingRefusedError(
        "the server refused killSessions, so the previous leader's open transactions cannot be aborted; " +
          "retrying (killSessionsRefused: waitTransactionLifetime takes over takeoverWaitSeconds after its lease expired)",
        context,
        { cause: refusal },
      );
    }
    const takenAt = taken.expiresAt.getTime() - this.leaseSeconds * 1000;
    const previousExpiry = taken.previousExpiresAt?.getTime() ?? takenAt;
    const waitMs = previousExpiry + this.fencing.takeoverWaitSeconds * 1000 - takenAt;
    await this.forgetPreviousSessions(taken.term);
    return waitMs;
  }

  /**
   * Keeps a taken-over lease renewed, without writing, for `waitMs`; then it is held. A stop
   * (`signal`) ends the wait at once, the lease not held: it expires by itself, and the
   * next holder fences the sessions it still lists.
   */
  private async holdWithoutWriting(
    term: number,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<{ term: number; renewedAt: number } | undefined> {
    const deadline = Date.now() + waitMs;
    this.term = term;
    this.heldUntil = 0;
    let renewedAt = Date.now();
    while (Date.now() < deadline) {
      const pause = Math.min(deadline - Date.now(), (this.leaseSeconds * 1000) / 3);
      if (!(await sleep(pause, true, { signal }).catch(() => false))) {
        this.term = undefined;
        return undefined;
      }
      renewedAt = Date.now();
      if ((await this.renew()) === undefined) {
        this.term = undefined;
        return undefined;
      }
    }
    return { term, renewedAt };
  }

  /**
   * The fencing write, inside a correction's transaction. `$set` of the unchanged holder:
   * it matches only while we hold the lease in the transaction's snapshot, and being a no-op
   * it does not make concurrent corrections of this replica conflict on the lease document.
   */
  async fence(session: ClientSession): Promise<void> {
    const { filter, update } = this.fencingWrite();
    const result = await this.fenced.updateOne(filter, update, { session });
    if (result.matchedCount === 0) throw this.takenOver();
  }

  /**
   * fence()'s write, for a command that carries it with the correction's own writes (bulkWrite);
   * throws at once when the lease has expired by our own clock. If it matches nothing, the
   * correction must fail with takenOver().
   */
  fencingWrite(): Extract<Write, { op: "updateOne" }> {
    if (!this.held) throw new LeaseLostError("writer lease expired locally", { holder: this.holder });
    return {
      op: "updateOne",
      collection: this.fenced.collectionName,
      filter: { _id: LEASE_ID, holder: this.holder, term: this.term },
      update: { $set: { holder: this.holder } },
    };
  }

  /** What a fencing write that matched nothing means. */
  takenOver(): LeaseLostError {
    return new LeaseLostError("another replica holds the writer lease", {
      holder: this.holder,
      term: this.term,
    });
  }

  /** Lets another replica take over at once (graceful stop); harmless when not held. */
  async release(): Promise<void> {
    if (this.term === undefined) return;
    const term = this.term;
    this.term = undefined;
    this.heldUntil = 0;
    await this.leases.updateOne(
      { _id: LEASE_ID, holder: this.holder, term },
      { $set: { expiresAt: new Date(0) } },
    );
  }

  /** Forgets the lease without telling the database (it was found lost). */
  forget(): void {
    this.term = undefined;
    this.heldUntil = 0;
  }
}
