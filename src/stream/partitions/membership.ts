// Membership of the replicas that share the partitions: each heartbeats in the state
// collection, `{_id: "member.<holder>", holder, expiresAt}`, expiry by the server's clock.
// docs/semantics.md, "Partitions".
import type { Collection, Db, Document } from "mongodb";

const MEMBER_PREFIX = "member.";

interface MemberDocument {
  _id: string;
  holder: string;
  expiresAt: Date;
}

/** A replica's heartbeat, and the live members as the state collection shows them. */
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

  /** The holders whose heartbeat has not expired, this one's included once it has beaten. */
  async live(): Promise<string[]> {
    const fresh = await this.members
      .find(
        { _id: { $regex: `^${MEMBER_PREFIX.replace(".", "\\.")}` }, $expr: { $gt: ["$expiresAt", "$$NOW"] } },
        { projection: { holder: 1 } },
      )
      .toArray();
    return fresh.map((member) => member.holder);
  }

  /** The holder of the unexpired lease `leaseId`, by the server's clock. */
  async writer(leaseId: string): Promise<string | undefined> {
    const lease = await this.members.findOne(
      { _id: leaseId, $expr: { $gt: ["$expiresAt", "$$NOW"] } },
      { projection: { holder: 1 } },
    );
    return lease?.holder;
  }

  /** Leaves at once (a graceful stop), so that the others stop counting this replica. */
  async leave(): Promise<void> {
    await this.members.deleteOne({ _id: MEMBER_PREFIX + this.holder });
  }
}
