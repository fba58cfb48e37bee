// Which documents this replica corrects: the one answer its sweeps ask (docs/operations.md,
// "Partitions"). Today one replica, the lease holder, owns every key.
import type { CorrectionTarget } from "../patterns/driver.js";

export interface KeyOwnership {
  /** What a log line says of the share: "every key", or the partitions held. */
  readonly description: string;
  owns(target: CorrectionTarget): boolean;
}

/** The writer lease's holder corrects every document. */
export const EVERY_KEY: KeyOwnership = { description: "every key", owns: () => true };
