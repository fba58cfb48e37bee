// Membership of the replicas that share the partitions: each heartbeats in the state
// collection, `{_id: "member.<holder>", holder, expiresAt}`, expiry by the server's clock.
// docs/semantics.md, "Partitions".
import type { Collection, Db, Document } from "mongodb";

const MEMBER_PREFIX = "member.";

/** The members' heartbeat documents, to a query: an `_id` prefix, which the `_id` index bounds. */
export const MEMBER_IDS = { _id: { $regex: `^${MEMBER_PREFIX.replace(".", "\\.")}` } };

/** Whether a state document's `_id` is a member's heartbeat. */
export const isMemberId = (id: string): boolean => id.startsWith(MEMBER_PREFIX);

/** Unexpired by the server's clock: a heartbeat's or a lease's `expiresAt` is still ahead of $$NOW. */
export const UNEXPIRED = { $expr: { $gt: ["$expiresAt", "$$NOW"] } };

interface MemberDocument {
  _id: string;
  holder: string;
  expiresAt: Date;
}

/** A replica's heartbeat; the live members are read with the leases (PartitionLeases' round). */
export class Membership {
  private readonly members: Collection<MemberDocument>;

  constructor(
    db: Db,
    stateCollection: string,
    readonly holder: string,
    private readonly leaseSeconds: number,
  ) {
    this.members = db.collection<MemberDocument>(stateCollection);
  }

  /** Marks this replica live for `leaseSeconds` more, by the server's clock ($$NOW). */
  async beat(): Promise<void> {
    const expiresAt: Document = { $add: ["$$NOW", this.leaseSeconds * 1000] };
    await this.members.updateOne(
      { _id: MEMBER_PREFIX + this.holder },
      [{ $set: { holder: this.holder, expiresAt } }],
      { upsert: true },
    );
  }

  /** The holder of the unexpired lease `leaseId`, by the server's clock. */
  async writer(leaseId: string): Promise<string | undefined> {
    const lease = await this.members.findOne({ _id: leaseId, ...UNEXPIRED }, { projection: { holder: 1 } });
    return lease?.holder;
  }

  /** Leaves at once (a graceful stop), so that the others stop counting this replica. */
  async leave(): Promise<void> {
    await this.members.deleteOne({ _id: MEMBER_PREFIX + this.holder });
  }
}
