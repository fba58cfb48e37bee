// Turning the test format's argument values into what the driver's option objects expect:
// read/write concerns and read preferences as the driver's shapes, numeric wrappers as numbers.
import { ReadPreference, type Document, type ReadPreferenceMode } from "mongodb";
import { bsonTypeTag } from "./bson-values.js";

/** Int32/Double/Long from the Extended JSON parse as JS numbers, which driver option checks expect. */
export function plainNumber(value: unknown): unknown {
  const tag = bsonTypeTag(value);
  if (tag === "Int32" || tag === "Double") return (value as { value: number }).value;
  if (tag === "Long") return Number((value as { toString(): string }).toString());
  return value;
}

export function readPreferenceFrom(spec: Document): ReadPreference {
  return new ReadPreference(spec.mode as ReadPreferenceMode, spec.tagSets as Document[] | undefined, {
    maxStalenessSeconds: plainNumber(spec.maxStalenessSeconds) as number | undefined,
    hedge: spec.hedge as Document | undefined,
  });
}

export function writeConcernFrom(spec: Document): Document {
  const concern: Document = {};
  if (spec.w !== undefined) concern.w = plainNumber(spec.w);
  if (spec.journal !== undefined) concern.journal = spec.journal;
  if (spec.wtimeoutMS !== undefined) concern.wtimeoutMS = plainNumber(spec.wtimeoutMS);
  return concern;
}

/**
 * Options as the driver takes them: top-level numbers unwrapped, and readConcern, readPreference
 * and writeConcern converted (format spec, "Special Handling for Arguments").
 */
export function driverOptions(args: Document): Document {
  const options: Document = {};
  for (const [key, value] of Object.entries(args)) {
    if (key === "readPreference") options[key] = readPreferenceFrom(value as Document);
    else if (key === "writeConcern") options[key] = writeConcernFrom(value as Document);
    else options[key] = plainNumber(value);
  }
  return options;
}
