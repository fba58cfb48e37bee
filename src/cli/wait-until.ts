// Polls a condition until it holds or a deadline passes: how the demo and the tests wait
// for the sidecar's outcomes, never by sleeping a fixed time and hoping.
import { setTimeout as delay } from "node:timers/promises";

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Says what was awaited when the deadline passes. */
  description?: string;
}

export async function waitUntil<T>(
  condition: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? "condition";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await delay(options.intervalMs ?? 50);
  }
}
