// What the soak runs per pattern: documents set up before the sidecars start, writers that
// write until told to stop and remember what they wrote (the ledger), and the invariants
// checked against that ledger once the sidecars have caught up.
import { setTimeout as delay } from "node:timers/promises";
import type { Db } from "mongodb";
import type { Prng } from "./prng.js";

export interface Writer {
  name: string;
  /** One application write; returns how many elements it wrote. */
  writeOnce(): Promise<number>;
}

export interface Workload {
  setUp(db: Db): Promise<void>;
  writers(db: Db, prng: Prng): Writer[];
  /** Each broken invariant, as a sentence naming the document. */
  violations(db: Db): Promise<string[]>;
}

export interface WriterTally {
  writes: number;
  elements: number;
  failures: string[];
}

// Writers pause between writes so that the load stays bounded on a small machine. A write
// that throws has an unknown outcome, so it ends that writer and is reported.
export async function runWriter(
  writer: Writer,
  prng: Prng,
  stopped: () => boolean,
  tally: WriterTally,
  maxPauseMs: number,
): Promise<void> {
  while (!stopped()) {
    try {
      const elements = await writer.writeOnce();
      tally.elements += elements;
      tally.writes += 1;
    } catch (error) {
      tally.failures.push(`writer ${writer.name} failed: ${(error as Error).message}`);
      return;
    }
    await delay(prng.int(2, maxPauseMs));
  }
}

/**
 * About one write in this many of the naive writers is a batch of ~14 MiB, whose change
 * event would pass the 16 MiB limit were it not projected down (docs/semantics.md).
 */
const LARGE_WRITE_ONE_IN = 1000;
const LARGE_WRITE_BYTES = 14 * 1024 * 1024;

/** A writer's next batch: how many elements, and how each is written from its id (padded to `bytes` in a large one). */
export function nextBatch(prng: Prng, bytes: number): Batch {
  if (prng.int(1, LARGE_WRITE_ONE_IN) !== 1)
    return { length: prng.int(1, 4), element: (id) => id, large: false };
  const element = (id: string) => `${id}|`.padEnd(bytes, ".");
  return { length: Math.floor(LARGE_WRITE_BYTES / bytes), element, large: true };
}

export interface Batch {
  length: number;
  element: (id: string) => string;
  large: boolean;
}

let largeWrites = 0;

/** How many large batches the server took so far, for the summary line. */
export function largeWritesDone(): number {
  return largeWrites;
}

// The server refuses a write whose document would pass 16 MiB (a large batch onto one the
// sidecar has not emptied yet): the application's own failure, which wrote nothing.
const DOCUMENT_TOO_LARGE = new Set([10334, 17419, 17420]);

/** Runs an application's write of a batch; false when the server refused it as too large. */
export async function writeUnlessTooLarge(batch: Batch, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    if (batch.large) largeWrites++;
    return true;
  } catch (error) {
    if (DOCUMENT_TOO_LARGE.has((error as { code?: number }).code ?? 0)) return false;
    throw error;
  }
}

/** An element as violations print it: its id, not its padding. */
function shown(id: string): string {
  return id.split("|")[0]!;
}

/** Violations of "every written element once, nothing else", naming `where`. */
export function exactlyOnce(where: string, written: readonly string[], found: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const id of found) counts.set(id, (counts.get(id) ?? 0) + 1);
  const problems: string[] = [];
  const lost = written.filter((id) => !counts.has(id));
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`);
  const writtenIds = new Set(written);
  const unknown = [...counts.keys()].filter((id) => !writtenIds.has(id));
  const some = (ids: string[]) => ids.slice(0, 5).map(shown).join(", ");
  if (lost.length > 0) problems.push(`${where}: lost ${lost.length} (${some(lost)})`);
  if (duplicated.length > 0) problems.push(`${where}: duplicated ${some(duplicated)}`);
  if (unknown.length > 0) problems.push(`${where}: never written ${some(unknown)}`);
  return problems;
}

/** A violation when `found` restricted to `written`'s ids is not `written`'s order. */
export function inOrder(where: string, written: readonly string[], found: readonly string[]): string[] {
  const mine = new Set(written);
  const seen = found.filter((id) => mine.has(id));
  const firstOff = seen.findIndex((id, i) => id !== written[i]);
  if (firstOff === -1) return [];
  const [got, expected] = [shown(seen[firstOff]!), shown(written[firstOff]!)];
  return [`${where}: out of order at #${firstOff}: ${got} where ${expected} was written`];
}
