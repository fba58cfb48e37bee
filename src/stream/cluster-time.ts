// The cluster time to start a change stream from after a sweep. It is read BEFORE the sweep
// starts, so that anything written while the sweep runs is seen again by the stream: never
// "now" after the fact, which would silently skip those writes.
import type { Db, Timestamp } from "mongodb";
import { SidecarError } from "../errors.js";

export async function currentClusterTime(db: Db): Promise<Timestamp> {
  // Replica-set members answer every command with the operationTime of the latest write
  // they have applied, and gossip $clusterTime alongside it.
  const reply = await db.command({ hello: 1 });
  const operationTime = reply.operationTime as Timestamp | undefined;
  const gossiped = (reply.$clusterTime as { clusterTime?: Timestamp } | undefined)?.clusterTime;
  const time = operationTime ?? gossiped;
  if (!time) {
    throw new SidecarError("the deployment reports no cluster time; change streams need a replica set", {
      database: db.databaseName,
    });
  }
  return time;
}
