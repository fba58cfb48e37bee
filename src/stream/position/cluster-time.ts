// The cluster time to start a change stream from after a sweep. It is read BEFORE the sweep
// starts, so that anything written while the sweep runs is seen again by the stream: never
// "now" after the fact, which would silently skip those writes.
import type { Db, Timestamp } from "mongodb";
import { SidecarError } from "../../errors.js";

export async function currentClusterTime(db: Db): Promise<Timestamp> {
  // The majority commit point first: a primary's operationTime can sit above a transaction
  // still committing (an oplog hole), whose writes a stream started there would never see.
  // Starting a little early only shows the sweep's own corrections again. Without it, the
  // operationTime of the latest write applied, or the gossiped $clusterTime.
  const reply = await db.command({ hello: 1 });
  const majority = (reply.lastWrite as { majorityOpTime?: { ts?: Timestamp } } | undefined)?.majorityOpTime
    ?.ts;
  const operationTime = reply.operationTime as Timestamp | undefined;
  const gossiped = (reply.$clusterTime as { clusterTime?: Timestamp } | undefined)?.clusterTime;
  const time = majority ?? operationTime ?? gossiped;
  if (!time) {
    throw new SidecarError("the deployment reports no cluster time; change streams need a replica set", {
      database: db.databaseName,
    });
  }
  return time;
}
