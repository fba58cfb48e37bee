// The pass that aborts transactions past transactionLifetimeLimitSeconds, timed as mongod
// times it (src/mongo/db/periodic_runner_job_abort_expired_transactions.cpp): every half the
// limit, kept between 1 s and 60 s, and rescheduled when setParameter changes the limit. So a
// transaction lives from the limit up to about one and a half times it.

export function reaperPeriodMs(lifetimeLimitSeconds: number): number {
  return Math.min(60_000, Math.max(1_000, lifetimeLimitSeconds * 500));
}

export class TransactionReaper {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly reap: () => void) {}

  /** Runs the pass every reaperPeriodMs(limit) from now on, in place of the earlier schedule. */
  schedule(lifetimeLimitSeconds: number): void {
    clearInterval(this.timer);
    this.timer = setInterval(this.reap, reaperPeriodMs(lifetimeLimitSeconds));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
