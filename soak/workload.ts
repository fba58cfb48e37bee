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

/** Violations of "every written element once, nothing else", naming `where`. */
export function exactlyOnce(where: string, written: readonly string[], found: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const id of found) counts.set(id, (counts.get(id) ?? 0) + 1);
  const problems: string[] = [];
  const lost = written.filter((id) => !counts.has(id));
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`);
  const writtenIds = new Set(written);
  const unknown = [...counts.keys()].filter((id) => !writtenIds.has(id));
  if (lost.length > 0) problems.push(`${where}: lost ${lost.length} (${lost.slice(0, 5).join(", ")})`);
  if (duplicated.length > 0) problems.push(`${where}: duplicated ${duplicated.slice(0, 5).join(", ")}`);
  if (unknown.length > 0) problems.push(`${where}: never written ${unknown.slice(0, 5).join(", ")}`);
  return problems;
}

/** A violation when `found` restricted to `written`'s ids is not `written`'s order. */
export function inOrder(where: string, written: readonly string[], found: readonly string[]): string[] {
  const mine = new Set(written);
  const seen = found.filter((id) => mine.has(id));
  const firstOff = seen.findIndex((id, i) => id !== written[i]);
  if (firstOff === -1) return [];
  return [`${where}: out of order at #${firstOff}: ${seen[firstOff]} where ${written[firstOff]} was written`];
}
