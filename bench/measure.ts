// Timing and memory for the benchmarks: wall time from process.hrtime.bigint, heap from
// process.memoryUsage after a full collection when `--expose-gc` allows one (npm run bench
// passes it), so that heap figures are live data rather than garbage not yet collected.

export interface Timing {
  calls: number;
  totalMs: number;
  meanMs: number;
  /** Per-call percentiles; only when each call was timed on its own. */
  p50Ms?: number;
  p99Ms?: number;
}

function elapsedMs(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

/** The sample below which `fraction` of them lie (nearest rank); 0 for none. */
export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** Times `calls` awaited calls one by one (latency percentiles included). */
export async function timeEachAsync(calls: number, fn: (call: number) => Promise<unknown>): Promise<Timing> {
  const samples: number[] = [];
  const start = process.hrtime.bigint();
  for (let call = 0; call < calls; call++) {
    const before = process.hrtime.bigint();
    await fn(call);
    samples.push(elapsedMs(before));
  }
  const totalMs = elapsedMs(start);
  return {
    calls,
    totalMs,
    meanMs: totalMs / calls,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
  };
}

/**
 * Calls a synchronous `fn` repeatedly for about `budgetMs` (at least `minCalls` times) and
 * times whole batches: a clock read per call would dwarf sub-microsecond calls. The caller
 * warms `fn` up first.
 */
export function timeSyncFor(budgetMs: number, minCalls: number, fn: () => unknown): Timing {
  let calls = 0;
  let batch = 1;
  const start = process.hrtime.bigint();
  while (calls < minCalls || elapsedMs(start) < budgetMs) {
    const before = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    // Batches grow only while a call is too short to time on its own.
    if (elapsedMs(before) / batch < 0.1) batch = Math.min(batch * 2, 4096);
  }
  const totalMs = elapsedMs(start);
  return { calls, totalMs, meanMs: totalMs / calls };
}

/** Runs `fn` once and returns its result with the wall time it took. */
export async function timeOnce<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { result, ms: elapsedMs(start) };
}

export function startClock(): () => number {
  const start = process.hrtime.bigint();
  return () => elapsedMs(start);
}

/** A full collection, when the process runs with --expose-gc: a measurement then starts without the garbage of what came before. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Heap in use, after a full collection when the process runs with --expose-gc. */
export function heapUsedBytes(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

export function gcExposed(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === "function";
}

/** Two timings taken in alternation, and the ratio of b to a in each round. */
export interface Alternation {
  a: Timing;
  b: Timing;
  /** b's median call over a's, one per round, in the order measured. */
  roundRatios: number[];
}

/** Per-call times of `calls` awaited calls, after a full collection (with --expose-gc). */
async function sampleCalls(calls: number, fn: () => Promise<unknown>): Promise<number[]> {
  collectGarbage();
  const samples: number[] = [];
  for (let call = 0; call < calls; call++) {
    const before = process.hrtime.bigint();
    await fn();
    samples.push(elapsedMs(before));
  }
  return samples;
}

function timingOf(samples: number[]): Timing {
  const totalMs = samples.reduce((sum, sample) => sum + sample, 0);
  return {
    calls: samples.length,
    totalMs,
    meanMs: totalMs / samples.length,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
  };
}

/**
 * Times `a` and `b` in `rounds` rounds of `perRound` calls each, after `warmUp` untimed calls
 * of both; the order within a round alternates (ab, ba, ...) and each half starts after a full
 * collection, so that neither side alone pays for warm-up, the other's garbage or the order.
 */
export async function timeAlternating(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  options: { warmUp: number; rounds: number; perRound: number },
): Promise<Alternation> {
  await sampleCalls(options.warmUp, a);
  await sampleCalls(options.warmUp, b);
  const all = { a: [] as number[], b: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
    const samples = { a: [] as number[], b: [] as number[] };
    for (const side of order) samples[side] = await sampleCalls(options.perRound, side === "a" ? a : b);
    all.a.push(...samples.a);
    all.b.push(...samples.b);
    roundRatios.push((timingOf(samples.b).p50Ms ?? 0) / (timingOf(samples.a).p50Ms ?? 1));
  }
  return { a: timingOf(all.a), b: timingOf(all.b), roundRatios };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
