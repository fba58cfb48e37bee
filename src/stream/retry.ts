// Attempts with exponential backoff and full jitter (so that two conflicting retriers do not
// collide again in step), stopped early by an AbortSignal: transactions, their commits and
// corrections retry through it. Three loops pace themselves on purpose: connecting
// (cli/deployment.ts: a logged doubling bounded by connectTimeoutSeconds), the runner's standby
// and restart (runner.ts: the lease's renewal interval), and parked targets (their next attempt
// is stored with them, parked-targets.ts, so that it outlives a restart).
import { setTimeout as delay } from "node:timers/promises";

export interface BackoffPolicy {
  /** Upper bound of the wait after the first failed attempt. */
  baseMs: number;
  /** The bound never grows past this. */
  maxMs: number;
}

export interface RetryOptions {
  backoff: BackoffPolicy;
  /** Whether the error of attempt `attempt` (from 1) is worth another attempt; throw it otherwise. */
  shouldRetry: (error: unknown, attempt: number) => boolean;
  /** Told before each wait, with the attempt that failed. */
  onRetry?: (error: unknown, attempt: number) => void;
  /** Whether to wait before retrying after this error (always, unless told): some have nothing to wait out. */
  waitsBefore?: (error: unknown) => boolean;
  /** Ends a wait at once; the loop then throws the last error. */
  signal?: AbortSignal;
}

/** A random wait in [0, min(maxMs, baseMs * 2^(attempt-1))). */
export function backoffMs(attempt: number, policy: BackoffPolicy): number {
  return Math.random() * Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
}

/** Sleeps `ms`, or less when `signal` aborts; never throws. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // Aborted: the caller re-checks why.
  }
}

export async function retryWithBackoff<T>(
  attemptOnce: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(attempt);
    } catch (error) {
      if (!options.shouldRetry(error, attempt) || options.signal?.aborted) throw error;
      options.onRetry?.(error, attempt);
      if (options.waitsBefore?.(error) === false) continue;
      await pause(backoffMs(attempt, options.backoff), options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
