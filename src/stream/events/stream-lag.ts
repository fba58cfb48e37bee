// How far the committed corrections lag behind the change stream, for the
// `stream_lag_seconds` gauge: 0 while caught up, else now minus the cluster time of the last
// event whose corrections all committed.
export class StreamLag {
  private caughtUp = false;
  /** Cluster time (seconds) of the newest event whose corrections all committed, this stream. */
  private lastEventClusterSeconds: number | undefined;

  /** A new stream: nothing is known of it yet. */
  reset(): void {
    this.caughtUp = false;
    this.lastEventClusterSeconds = undefined;
  }

  setCaughtUp(caughtUp: boolean): void {
    this.caughtUp = caughtUp;
  }

  get isCaughtUp(): boolean {
    return this.caughtUp;
  }

  eventProcessed(clusterTimeSeconds: number): void {
    this.lastEventClusterSeconds = Math.max(this.lastEventClusterSeconds ?? 0, clusterTimeSeconds);
  }

  /** Seconds behind; undefined before the first event of a stream that is not caught up. */
  seconds(now = Date.now()): number | undefined {
    if (this.caughtUp) return 0;
    if (this.lastEventClusterSeconds === undefined) return undefined;
    return Math.max(0, now / 1000 - this.lastEventClusterSeconds);
  }
}
