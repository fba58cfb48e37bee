// Parsing of the $changeStream stage's options, with the errors mongod's IDL parser and
// DocumentSourceChangeStream::assertIsLegalSpecification give for bad ones.
import { Timestamp, type Document } from "bson";
import { ServerError } from "../errors.js";
import { decodeResumeToken, positionBefore, timestampToBigInt, type StreamPosition } from "./resume-token.js";

export type FullDocumentMode = "default" | "updateLookup" | "whenAvailable" | "required";
export type FullDocumentBeforeChangeMode = "off" | "whenAvailable" | "required";

/** Where the stream starts: after `position`, or (no start option) at the current cluster time. */
export type StreamStart =
  { kind: "now" } | { kind: "resumeAfter" | "startAfter" | "startAtOperationTime"; position: StreamPosition };

export interface ChangeStreamOptions {
  fullDocument: FullDocumentMode;
  fullDocumentBeforeChange: FullDocumentBeforeChangeMode;
  showExpandedEvents: boolean;
  start: StreamStart;
}

const FULL_DOCUMENT_MODES: readonly FullDocumentMode[] = [
  "default",
  "updateLookup",
  "whenAvailable",
  "required",
];
const BEFORE_CHANGE_MODES: readonly FullDocumentBeforeChangeMode[] = ["off", "whenAvailable", "required"];
/** The fields mongod's DocumentSourceChangeStreamSpec accepts (7.0), internal ones included. */
const KNOWN_FIELDS = new Set([
  "resumeAfter",
  "startAfter",
  "startAtOperationTime",
  "fullDocument",
  "fullDocumentBeforeChange",
  "allChangesForCluster",
  "showExpandedEvents",
  "showMigrationEvents",
  "showSystemEvents",
  "showRawUpdateDescription",
  "allowToRunOnConfigDB",
  "allowToRunOnSystemNS",
]);

export function parseChangeStreamOptions(spec: unknown): ChangeStreamOptions {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new ServerError(50808, "Location50808", "$changeStream stage expects a document as argument");
  }
  const fields = spec as Document;
  for (const name of Object.keys(fields)) {
    if (!KNOWN_FIELDS.has(name)) {
      throw new ServerError(
        40415,
        "Location40415",
        `BSON field '$changeStream.${name}' is an unknown field.`,
      );
    }
  }
  return {
    fullDocument: enumField(fields, "fullDocument", FULL_DOCUMENT_MODES, "default"),
    fullDocumentBeforeChange: enumField(fields, "fullDocumentBeforeChange", BEFORE_CHANGE_MODES, "off"),
    showExpandedEvents: boolField(fields, "showExpandedEvents"),
    start: parseStart(fields),
  };
}

export function wantsAllChangesForCluster(spec: Document): boolean {
  return boolField(spec, "allChangesForCluster");
}

function parseStart(fields: Document): StreamStart {
  const resumeAfter = fields.resumeAfter as unknown;
  const startAfter = fields.startAfter as unknown;
  const startAt = fields.startAtOperationTime as unknown;
  if (resumeAfter !== undefined) objectField(resumeAfter, "resumeAfter");
  if (startAfter !== undefined) objectField(startAfter, "startAfter");
  if (resumeAfter !== undefined && startAfter !== undefined) {
    throw new ServerError(
      50865,
      "Location50865",
      "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage",
    );
  }
  if (startAt !== undefined && (resumeAfter !== undefined || startAfter !== undefined)) {
    throw new ServerError(
      40674,
      "Location40674",
      "Only one type of resume option is allowed, but multiple were found",
    );
  }
  if (resumeAfter !== undefined) {
    const position = decodeResumeToken(resumeAfter, "resumeAfter");
    if (position.kind === "invalidate") {
      throw new ServerError(
        260,
        "InvalidResumeToken",
        "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification",
      );
    }
    return { kind: "resumeAfter", position };
  }
  if (startAfter !== undefined)
    return { kind: "startAfter", position: decodeResumeToken(startAfter, "startAfter") };
  if (startAt !== undefined) {
    if (!(startAt instanceof Timestamp)) throw wrongType("startAtOperationTime", startAt, "timestamp");
    return { kind: "startAtOperationTime", position: positionBefore(timestampToBigInt(startAt)) };
  }
  return { kind: "now" };
}

function enumField<T extends string>(fields: Document, name: string, allowed: readonly T[], fallback: T): T {
  const value = fields[name] as unknown;
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw wrongType(name, value, "string");
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ServerError(
      2,
      "BadValue",
      `Enumeration value '${value}' for field '$changeStream.${name}' is not a valid value.`,
    );
  }
  return value as T;
}

function boolField(fields: Document, name: string): boolean {
  const value = fields[name] as unknown;
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw wrongType(name, value, "bool");
  return value;
}

function objectField(value: unknown, name: string): void {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw wrongType(name, value, "object");
}

function wrongType(name: string, value: unknown, expected: string): ServerError {
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return new ServerError(
    14,
    "TypeMismatch",
    `BSON field '$changeStream.${name}' is the wrong type '${actual}', expected type '${expected}'`,
  );
}
