// $changeStreamSplitLargeEvent (7.0): an event too large for a reply, after the user's stages,
// is returned as fragments, each with its own resume token and `splitEvent: {fragment, of}`.
// mongo src/mongo/db/pipeline/document_source_change_stream_split_large_event.cpp and
// change_stream_split_event_helpers.cpp; the docs' "Large Change Events" page.
import { BSON, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import { MAX_INTERNAL_BSON_BYTES } from "../reply-limit.js";
import { encodeResumeToken, type StreamPosition } from "./resume-token.js";

export const SPLIT_STAGE = "$changeStreamSplitLargeEvent";

/** An event over this is split; each fragment stays under it (kBSONObjMaxChangeEventSize). */
export const MAX_CHANGE_EVENT_BYTES = MAX_INTERNAL_BSON_BYTES - 8 * 1024;

/** The user's stages without a trailing split stage, and whether it was there. */
export function withoutSplitStage(pipeline: Document[]): { stages: Document[]; splits: boolean } {
  const at = pipeline.findIndex((stage) => Object.hasOwn(stage, SPLIT_STAGE));
  if (at < 0) return { stages: pipeline, splits: false };
  const spec = pipeline[at]![SPLIT_STAGE] as unknown;
  if (spec === null || typeof spec !== "object" || Array.isArray(spec) || Object.keys(spec).length > 0) {
    throw new ServerError(7182800, "Location7182800", `${SPLIT_STAGE} spec should be an empty object`);
  }
  if (at !== pipeline.length - 1) {
    throw new ServerError(
      7182802,
      "Location7182802",
      `${SPLIT_STAGE} must be the last stage in the pipeline`,
    );
  }
  return { stages: pipeline.slice(0, -1), splits: true };
}

/** mongod refuses a fragment token for a stream that cannot reproduce the split. */
export function assertCanResumeFromFragment(start: StreamPosition, splits: boolean): void {
  if (start.fragment === undefined || splits) return;
  throw changeStreamFatal(
    `To resume from a split event, the $changeStream pipeline must include a ${SPLIT_STAGE} stage`,
  );
}

export interface PositionedEvent {
  document: Document;
  position: StreamPosition;
}

/**
 * The event as the stream returns it: whole when it fits, else its fragments after
 * `resumedFragment` (the fragment a resume token or the previous batch ended on, if any).
 */
export function eventOrFragments(
  event: Document,
  position: StreamPosition,
  resumedFragment: number | undefined,
): PositionedEvent[] {
  if (BSON.calculateObjectSize(event) <= MAX_CHANGE_EVENT_BYTES) {
    if (resumedFragment !== undefined) {
      throw changeStreamFatal(
        "Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split",
      );
    }
    return [{ document: event, position }];
  }
  const fragments = splitChangeEvent(event, position);
  if (resumedFragment !== undefined && resumedFragment >= fragments.length) {
    throw changeStreamFatal(
      "Attempted to resume from a split event, but the resumed stream produced a different split. " +
        "Ensure that the pipeline used to resume is the same as the original",
    );
  }
  return resumedFragment === undefined ? fragments : fragments.slice(resumedFragment + 1);
}

/**
 * mongod's greedy split: the top-level fields but _id, smallest first (then by name), as many
 * per fragment as fit under the limit less the resume token's size, at least one each.
 */
function splitChangeEvent(event: Document, position: StreamPosition): PositionedEvent[] {
  const fields = Object.keys(event)
    .filter((key) => key !== "_id")
    .map((key) => ({ key, size: elementSize(key, event[key]) }))
    .sort((a, b) => a.size - b.size || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (fields.length === 0) {
    throw new ServerError(
      7182502,
      "Location7182502",
      "Cannot split an empty event or an event containing solely '_id' field",
    );
  }
  const maxFragmentBytes = MAX_CHANGE_EVENT_BYTES - BSON.calculateObjectSize(encodeResumeToken(position));
  const fragments: PositionedEvent[] = [];
  let next = 0;
  while (next < fields.length) {
    const fragmentPosition: StreamPosition = { ...position, fragment: fragments.length };
    const document: Document = {
      _id: encodeResumeToken(fragmentPosition),
      splitEvent: { fragment: fragments.length + 1, of: 0 },
    };
    let bytes = BSON.calculateObjectSize(document);
    do {
      const field = fields[next++]!;
      document[field.key] = event[field.key];
      bytes += field.size;
    } while (next < fields.length && bytes + fields[next]!.size <= maxFragmentBytes);
    if (bytes > maxFragmentBytes) {
      throw new ServerError(
        7182500,
        "Location7182500",
        `Splitting change event failed: fragment size ${bytes} is greater than maximum allowed fragment size ${maxFragmentBytes}`,
      );
    }
    fragments.push({ document, position: fragmentPosition });
  }
  for (const { document } of fragments) (document.splitEvent as Document).of = fragments.length;
  return fragments;
}

/** The bytes `key: value` takes inside a document. */
function elementSize(key: string, value: unknown): number {
  return BSON.calculateObjectSize({ [key]: value }) - 5;
}

function changeStreamFatal(message: string): ServerError {
  return new ServerError(ErrorCode.ChangeStreamFatalError, "ChangeStreamFatalError", message);
}
