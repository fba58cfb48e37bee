// What a secondary lagging `lagMs` behind the primary would serve (`secondaryLagMs`): the
// committed state as of that long ago. Modes other than primary may read stale data, as
// secondaries replicate asynchronously (the MongoDB manual's core/read-preference page).
// A snapshot is pinned at each commit and let go once a newer one is old enough to serve.
import type { Catalog } from "./catalog.js";

interface Pinned {
  /** Wall-clock milliseconds when the state was pinned. */
  at: number;
  ts: bigint;
}

export class LaggedSnapshots {
  /** Oldest first; the first is the one reads get while nothing newer is `lagMs` old. */
  private readonly pinned: Pinned[] = [];

  constructor(
    private readonly catalog: Catalog,
    private readonly lagMs: number,
  ) {
    this.pin();
  }

  /** After a commit: pins the state it made, and lets go of the states no read can want now. */
  pin(now = Date.now()): void {
    this.pinned.push({ at: now, ts: this.catalog.openSnapshot() });
    while (this.pinned.length > 1 && this.pinned[1]!.at <= now - this.lagMs) {
      this.catalog.releaseSnapshot(this.pinned.shift()!.ts);
    }
  }

  /** The newest state pinned at least `lagMs` ago (the server's first, before then). */
  snapshot(now = Date.now()): bigint {
    const cutoff = now - this.lagMs;
    let low = 0;
    let high = this.pinned.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.pinned[mid]!.at <= cutoff) low = mid;
      else high = mid - 1;
    }
    return this.pinned[low]!.ts;
  }
}
