// The cluster clock: every commit gets a Timestamp strictly greater than the previous one
// (seconds since the epoch, then an increment), as the oplog's timestamps are. Replies carry
// the latest one as $clusterTime / operationTime.
import { Timestamp } from "bson";

export class ClusterClock {
  private seconds = 0;
  private increment = 0;

  constructor() {
    this.tick();
  }

  /** A new cluster time for a commit. */
  tick(): Timestamp {
    const now = Math.floor(Date.now() / 1000);
    if (now > this.seconds) {
      this.seconds = now;
      this.increment = 1;
    } else {
      this.increment += 1;
    }
    return this.current();
  }

  current(): Timestamp {
    return new Timestamp({ t: this.seconds, i: this.increment });
  }
}

export function timestampToBigInt(ts: Timestamp): bigint {
  return (BigInt(ts.high >>> 0) << 32n) | BigInt(ts.low >>> 0);
}
