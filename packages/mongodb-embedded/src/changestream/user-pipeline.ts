// The stages a user may put after $changeStream, run on one event at a time (each event's
// result is then checked against its own resume token and against the BSON size limit).
import { BSON, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import { compilePipeline } from "../query/index.js";
import { MAX_INTERNAL_BSON_BYTES } from "../reply-limit.js";
import { SPLIT_STAGE } from "./split-large-event.js";
import { bsonEqual } from "./update-description.js";

/** mongod's allowlist: stages whose constraints say isAllowedInChangeStream (7.0). */
const ALLOWED_STAGES = new Set([
  "$match",
  "$project",
  "$addFields",
  "$set",
  "$unset",
  "$replaceRoot",
  "$replaceWith",
  "$redact",
]);

/** Other stage names mongod knows: refused with IllegalOperation rather than "unrecognized". */
const KNOWN_STAGES = new Set([
  "$bucket",
  "$bucketAuto",
  "$collStats",
  "$count",
  "$densify",
  "$documents",
  "$facet",
  "$fill",
  "$geoNear",
  "$graphLookup",
  "$group",
  "$indexStats",
  "$limit",
  "$listSessions",
  "$lookup",
  "$merge",
  "$out",
  "$sample",
  "$search",
  "$searchMeta",
  "$setWindowFields",
  "$skip",
  "$sort",
  "$sortByCount",
  "$unionWith",
  "$unwind",
  "$currentOp",
  "$listLocalSessions",
  "$planCacheStats",
  "$shardedDataDistribution",
  "$vectorSearch",
]);

/**
 * mongod refuses an event bigger than this when it serializes it for the reply, after the
 * user's stages (BSONObjectTooLarge; mongo src/mongo/db/pipeline/plan_executor_pipeline.cpp).
 */
export const MAX_EVENT_BYTES = MAX_INTERNAL_BSON_BYTES;

export function validateUserPipeline(stages: Document[]): void {
  for (const stage of stages) {
    const names = stage !== null && typeof stage === "object" ? Object.keys(stage) : [];
    if (names.length !== 1) {
      throw new ServerError(
        ErrorCode.Location40324,
        "Location40324",
        "A pipeline stage specification object must contain exactly one field.",
      );
    }
    const name = names[0]!;
    if (name === "$changeStream") {
      throw new ServerError(
        40602,
        "Location40602",
        "$changeStream is only valid as the first stage in a pipeline.",
      );
    }
    // Its place and spec are checked where it is taken off the stages (withoutSplitStage).
    if (ALLOWED_STAGES.has(name) || name === SPLIT_STAGE) continue;
    if (KNOWN_STAGES.has(name)) {
      throw new ServerError(
        ErrorCode.IllegalOperation,
        "IllegalOperation",
        `${name} is not permitted in a $changeStream pipeline`,
      );
    }
    throw new ServerError(
      ErrorCode.Location40324,
      "Location40324",
      `Unrecognized pipeline stage name: '${name.replace(/^\$/, "")}'`,
    );
  }
}

/** The user's stages compiled once per cursor: the event after them, or null when they drop it. */
export function compileUserPipeline(stages: Document[]): (event: Document) => Document | null {
  if (stages.length === 0) return (event) => event;
  const run = compilePipeline(stages, { collection: () => [] });
  return (event) => {
    const output = run([event])[0];
    return output === undefined ? null : assertTokenKept(event, output);
  };
}

function assertTokenKept(event: Document, output: Document): Document {
  if (!bsonEqual(output._id, event._id)) {
    // The resume token is the event's _id: a stream whose events lost it could never resume.
    throw new ServerError(
      ErrorCode.ChangeStreamFatalError,
      "ChangeStreamFatalError",
      "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. " +
        "Modifying the _id field of an event makes it impossible to resume the stream from that point. " +
        "Only transformations that retain the unmodified _id field are allowed.",
    );
  }
  return output;
}

export function assertEventFits(event: Document): number {
  const size = BSON.calculateObjectSize(event);
  if (size > MAX_EVENT_BYTES) {
    throw new ServerError(
      ErrorCode.BSONObjectTooLarge,
      "BSONObjectTooLarge",
      `Executor error during getMore :: caused by :: BSONObj size: ${size} (0x${size.toString(16)}) is invalid. ` +
        `Size must be between 0 and ${MAX_EVENT_BYTES}(16MB) First element: _id: ${JSON.stringify(event._id)}`,
    );
  }
  return size;
}
