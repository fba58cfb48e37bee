// The shape of a unified-format test file, as far as this interpreter reads it. Values come from
// an Extended JSON parse, so documents hold bson classes (Int32, Long, ObjectId...).
import type { Document } from "mongodb";
import type { RunOnRequirement } from "./requirements.js";

export interface TestFile {
  description: string;
  schemaVersion: string;
  runOnRequirements?: RunOnRequirement[];
  createEntities?: EntityDescription[];
  initialData?: CollectionData[];
  tests: TestCase[];
}

export interface TestCase {
  description: string;
  runOnRequirements?: RunOnRequirement[];
  skipReason?: string;
  operations: Operation[];
  expectEvents?: ExpectedEventsForClient[];
  expectLogMessages?: unknown[];
  expectTracingMessages?: unknown;
  outcome?: CollectionData[];
}

/** Exactly one key: client, database, collection, session, bucket, thread, clientEncryption. */
export type EntityDescription = Record<string, Document>;

export interface CollectionData {
  collectionName: string;
  databaseName: string;
  createOptions?: Document;
  documents: Document[];
}

export interface Operation {
  name: string;
  object: string;
  arguments?: Document;
  expectResult?: unknown;
  expectError?: ExpectedError;
  saveResultAsEntity?: string;
  ignoreResultAndError?: boolean;
}

export interface ExpectedError {
  isError?: boolean;
  isClientError?: boolean;
  isTimeoutError?: boolean;
  errorContains?: string;
  errorCode?: number;
  errorCodeName?: string;
  errorLabelsContain?: string[];
  errorLabelsOmit?: string[];
  writeErrors?: Record<string, Document>;
  writeConcernErrors?: Document[];
  errorResponse?: Document;
  expectResult?: unknown;
}

export interface ExpectedEventsForClient {
  client: string;
  eventType?: "command" | "cmap" | "sdam";
  events: Document[];
  ignoreExtraEvents?: boolean;
}
