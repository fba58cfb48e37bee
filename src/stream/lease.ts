// The writer lease: at most one replica corrects documents at a time. The lease is a
// document in the state collection, `{_id: "lease", holder, term, expiresAt}`. A replica
// takes it over only once it has expired, and every takeover bumps `term`. Every correction
// checks `{holder: me, term: myTerm}` inside its own transaction (the fence), so a leader
// that was paused past its lease cannot commit a correction once another replica holds it.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { MongoServerError, type ClientSession, type Collection, type Db } from "mongodb";
import { LeaseLostError } from "../errors.js";

export const LEASE_ID = "lease";
const DUPLICATE_KEY = 11000;

interface LeaseDocument {
  _id: string;
  holder: string;
  term: number;
  expiresAt: Date;
}

export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export class WriterLease {
  private readonly leases: Collection<LeaseDocument>;
  private term: number | undefined;
  /** Local deadline: past it we stop writing even if the database was not reachable to tell us. */
  private heldUntil = 0;

  constructor(
    db: Db,
    stateCollection: string,
    readonly holder: string,
    private readonly leaseSeconds: number,
  ) {
    this.leases = db.collection<LeaseDocument>(stateCollection);
  }

  /** Whether this replica may write now, by its own clock (with a safety margin). */
  get held(): boolean {
    return this.term !== undefined && Date.now() < this.heldUntil;
  }

  /** Renews the lease if held, takes it over if free or expired; returns whether it is held. */
  async acquireOrRenew(): Promise<boolean> {
    const requestedAt = Date.now();
    const expiresAt = new Date(requestedAt + this.leaseSeconds * 1000);
    const term = this.term !== undefined ? await this.renew(expiresAt) : await this.takeOver(expiresAt);
    this.term = term;
    // Count from before the request: the database may have applied it at any point since.
    this.heldUntil = term === undefined ? 0 : requestedAt + this.leaseSeconds * 800;
    return this.held;
  }

  private async renew(expiresAt: Date): Promise<number | undefined> {
    const result = await this.leases.updateOne(
      { _id: LEASE_ID, holder: this.holder, term: this.term },
      { $set: { expiresAt } },
    );
    return result.matchedCount === 1 ? this.term : undefined;
  }

  private async takeOver(expiresAt: Date): Promise<number | undefined> {
    const taken = await this.leases.findOneAndUpdate(
      { _id: LEASE_ID, expiresAt: { $lte: new Date() } },
      { $set: { holder: this.holder, expiresAt }, $inc: { term: 1 } },
      { returnDocument: "after" },
    );
    if (taken) return taken.term;
    try {
      await this.leases.insertOne({ _id: LEASE_ID, holder: this.holder, term: 1, expiresAt });
      return 1;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return undefined;
      throw error;
    }
  }

  /**
   * The fencing write, inside a correction's transaction. `$set` of the unchanged holder:
   * it matches only while we hold the lease in the transaction's snapshot, and being a no-op
   * it does not make concurrent corrections of this replica conflict on the lease document.
   */
  async fence(session: ClientSession): Promise<void> {
    if (!this.held) throw new LeaseLostError("writer lease expired locally", { holder: this.holder });
    const result = await this.leases.updateOne(
      { _id: LEASE_ID, holder: this.holder, term: this.term },
      { $set: { holder: this.holder } },
      { session },
    );
    if (result.matchedCount === 0) {
      throw new LeaseLostError("another replica holds the writer lease", {
        holder: this.holder,
        term: this.term,
      });
    }
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
