// Keeps the writer lease: takes it over when free, renews it every third of its lifetime on
// its own timer (not behind the corrections it protects), reports whether it is held in the
// `leader` gauge, and logs a renewal that came late with how late it was, and one that is
// still waiting for the database at the next turn with how long it has waited (its client
// gives up on it once it could no longer count: leaseClientOptions).
import { TakeoverBlockedError } from "../../errors.js";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { WriterLease } from "./lease.js";

export interface LeaseKeeperOptions {
  lease: WriterLease;
  leaseSeconds: number;
  metrics: Pick<Metrics, "errors" | "isLeader">;
  logger: Logger;
}

export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<boolean> | undefined;
  private renewingSince = 0;
  private lastRenewedAt = 0;

  constructor(private readonly options: LeaseKeeperOptions) {}

  get lease(): WriterLease {
    return this.options.lease;
  }

  /** How often the lease is renewed: three chances before it expires. */
  get renewIntervalMs(): number {
    return (this.options.leaseSeconds * 1000) / 3;
  }

  /** Takes or renews the lease once; a database that cannot be reached means "not held". */
  async tryAcquire(): Promise<boolean> {
    const { lease, metrics } = this.options;
    try {
      const held = await lease.acquireOrRenew();
      metrics.isLeader.set(held ? 1 : 0);
      if (held) this.lastRenewedAt = Date.now();
      return held;
    } catch (err) {
      const blocked = err instanceof TakeoverBlockedError;
      reportError(this.options, err, blocked ? err.message : "could not reach the writer lease");
      metrics.isLeader.set(lease.held ? 1 : 0);
      return false;
    }
  }

  /** Renews on a timer until stopRenewing(); a renewal never overlaps the previous one. */
  startRenewing(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renewOnce(), this.renewIntervalMs);
  }

  stopRenewing(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renewOnce(): Promise<void> {
    if (this.renewing) {
      this.options.logger.warn(
        { waitingMs: Date.now() - this.renewingSince, leaseSeconds: this.options.leaseSeconds },
        "writer lease renewal still waiting for the database",
      );
      return;
    }
    const sinceLast = Date.now() - this.lastRenewedAt;
    if (this.lastRenewedAt > 0 && sinceLast > this.renewIntervalMs * 1.5) {
      this.options.logger.warn(
        { sinceLastRenewalMs: sinceLast, leaseSeconds: this.options.leaseSeconds },
        "writer lease renewal ran late (event loop or database stalled)",
      );
    }
    this.renewingSince = Date.now();
    this.renewing = this.tryAcquire();
    try {
      if (!(await this.renewing)) {
        // Taken over, or renewed too late to count: tells a lost lease from a slow database.
        const stillOurs = this.options.lease.termHeld !== undefined;
        this.options.logger.warn(
          {
            renewalMs: Date.now() - this.renewingSince,
            reason: stillOurs ? "no renewal in time" : "held by another replica",
          },
          "writer lease not renewed; stopping corrections",
        );
      }
    } finally {
      this.renewing = undefined;
    }
  }

  /** Lets another replica take over at once; harmless when not held. */
  async release(): Promise<void> {
    this.stopRenewing();
    try {
      await this.options.lease.release();
    } catch (err) {
      this.options.logger.warn({ err }, "could not release the writer lease");
    }
    this.options.metrics.isLeader.set(0);
  }
}
