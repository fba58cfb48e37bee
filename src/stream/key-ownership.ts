// Which documents this replica corrects: the one answer its sweeps and parked retries ask
// (docs/operations.md, "Partitions"): the keys of the partitions it owns.
import type { CorrectionTarget } from "../patterns/driver.js";
import { partitionOfTarget } from "./partitions/target-partition.js";

export interface KeyOwnership {
  /** What a log line says of the share: "every key", or the partitions held. */
  readonly description: string;
  owns(target: CorrectionTarget): boolean;
}

/** The owner of every partition corrects every document. */
export const EVERY_KEY: KeyOwnership = { description: "every key", owns: () => true };

/** The keys that hash into `owned` among `partitions` partitions; every key when it owns them all. */
export function keysOfPartitions(owned: readonly number[], partitions: number): KeyOwnership {
  const held = new Set(owned);
  if (held.size === partitions) return EVERY_KEY;
  return {
    // Made when a log line asks: the runner asks for a replica's keys for every target it reads.
    get description() {
      return held.size === 0 ? "no key" : `partitions ${[...held].sort((a, b) => a - b).join(", ")}`;
    },
    owns: (target) => held.has(partitionOfTarget(target, partitions)),
  };
}
