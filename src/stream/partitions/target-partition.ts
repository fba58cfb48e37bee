// Which partition a correction target belongs to: the hash of the key its driver names
// (PatternDriver.stream.partitionKey, its `id` by default). docs/semantics.md, "Partitions".
import { BSON } from "mongodb";
import type { CorrectionTarget } from "../../patterns/driver.js";
import { driverOf } from "../../patterns/registry.js";
import { partitionOf, UnhashableKeyError } from "./hashed-key.js";

/** The key a target's partition is the hash of. */
export function partitionKeyOf(target: CorrectionTarget): unknown {
  const { rule } = target;
  const named = driverOf(rule).stream.partitionKey;
  return named ? named(rule, target) : target.id;
}

/**
 * Each target's partition, once: a replica asks it when the event is dispatched (does it own
 * the target?) and again for every transaction the target is in (its fences), and each answer
 * is an MD5. A target's key never changes (it is made from the event).
 */
const computed = new WeakMap<CorrectionTarget, { partitions: number; partition: number }>();

/**
 * The target's partition among `partitions`. A key mongod's hashed index would not take (a
 * document, an array, binary data) hashes as its canonical Extended JSON text, which a
 * server-side filter cannot compute but which is as stable.
 */
export function partitionOfTarget(target: CorrectionTarget, partitions: number): number {
  const known = computed.get(target);
  if (known?.partitions === partitions) return known.partition;
  const partition = hashIntoPartition(partitionKeyOf(target), partitions);
  computed.set(target, { partitions, partition });
  return partition;
}

function hashIntoPartition(key: unknown, partitions: number): number {
  try {
    return partitionOf(key, partitions);
  } catch (error) {
    if (!(error instanceof UnhashableKeyError)) throw error;
    return partitionOf(BSON.EJSON.stringify(key, { relaxed: false }), partitions);
  }
}
