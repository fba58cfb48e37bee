// expectedError assertions. Bulk write errors aggregate several server errors: errorContains,
// errorCode and errorCodeName are satisfied by any of them (format spec, "bulkWrite").
import { BSONError } from "bson";
import {
  MongoBulkWriteError,
  MongoClientBulkWriteError,
  MongoError,
  MongoOperationTimeoutError,
  MongoServerError,
  type Document,
} from "mongodb";
import { describeValue } from "./bson-values.js";
import { findDifference, type MatchEntities } from "./matcher.js";
import { resultDocument } from "./result-document.js";
import type { ExpectedError } from "./test-file-types.js";

// Names the tests assert on write errors, which carry a code but no codeName (error_codes.yml).
const codesByName: Record<string, number> = {
  DuplicateKey: 11000,
  DocumentValidationFailure: 121,
  MaxTimeMSExpired: 50,
  UnsatisfiableWriteConcern: 100,
  UnknownReplWriteConcern: 79,
  WriteConcernFailed: 64,
  FailedToParse: 9,
  BadValue: 2,
  NamespaceNotFound: 26,
  ChangeStreamFatalError: 280,
};

interface ServerErrorPart {
  code?: number;
  codeName?: string;
  message?: string;
}

/** The error itself and, for bulk writes, each write error and write concern error inside it. */
function errorParts(error: Error): ServerErrorPart[] {
  const parts: ServerErrorPart[] = [partOf(error)];
  if (error instanceof MongoBulkWriteError) {
    for (const writeError of [error.writeErrors].flat()) {
      parts.push({ code: writeError.code, message: writeError.errmsg });
    }
    const concern = error.result?.getWriteConcernError?.();
    if (concern) parts.push({ code: concern.code, message: concern.errmsg });
  }
  if (error.cause instanceof Error) parts.push(partOf(error.cause));
  return parts;
}

function partOf(error: Error): ServerErrorPart {
  const withCode = error as Error & { code?: unknown; codeName?: unknown; errmsg?: unknown };
  return {
    code: typeof withCode.code === "number" ? withCode.code : undefined,
    codeName: typeof withCode.codeName === "string" ? withCode.codeName : undefined,
    message: [error.message, typeof withCode.errmsg === "string" ? withCode.errmsg : ""].join(" "),
  };
}

export function expectedErrorDifference(
  expected: ExpectedError,
  error: Error,
  entities: MatchEntities,
): string | undefined {
  const checks = [
    () => checkOrigin(expected, error),
    () => checkMessageAndCodes(expected, errorParts(error)),
    () => checkLabels(expected, error),
    () => checkErrorResponse(expected, error, entities),
    () => checkPartialResult(expected, error, entities),
    () => checkClientBulkWriteErrors(expected, error, entities),
  ];
  for (const check of checks) {
    const difference = check();
    if (difference) return `${difference} (error: ${error.name}: ${error.message})`;
  }
  return undefined;
}

function checkOrigin(expected: ExpectedError, error: Error): string | undefined {
  // Client errors are raised without a server response: validation, network, driver state.
  // A JS TypeError is the interpreter's own bug, never the driver's client-side validation.
  const fromServer = error instanceof MongoServerError;
  const fromDriver = !fromServer && (error instanceof MongoError || error instanceof BSONError);
  if (expected.isClientError === true && !fromDriver) return `expected a client (driver) error`;
  if (expected.isClientError === false && !fromServer) return `expected a server error`;
  const isTimeout = error instanceof MongoOperationTimeoutError;
  if (expected.isTimeoutError !== undefined && expected.isTimeoutError !== isTimeout) {
    return `expected ${expected.isTimeoutError ? "a" : "no"} timeout error`;
  }
  return undefined;
}

function checkMessageAndCodes(expected: ExpectedError, parts: ServerErrorPart[]): string | undefined {
  if (expected.errorContains !== undefined) {
    const wanted = expected.errorContains.toLowerCase();
    if (!parts.some((part) => part.message?.toLowerCase().includes(wanted))) {
      return `error message does not contain ${JSON.stringify(expected.errorContains)}`;
    }
  }
  if (expected.errorCode !== undefined && !parts.some((part) => part.code === Number(expected.errorCode))) {
    return `expected error code ${expected.errorCode}, got ${parts.map((part) => part.code).join(",")}`;
  }
  if (expected.errorCodeName !== undefined) {
    const name = expected.errorCodeName.toLowerCase();
    const code = codesByName[expected.errorCodeName];
    const matches = parts.some(
      (part) => part.codeName?.toLowerCase() === name || (part.codeName === undefined && part.code === code),
    );
    if (!matches)
      return `expected error code name ${expected.errorCodeName}, got ${parts.map((p) => p.codeName ?? p.code).join(",")}`;
  }
  return undefined;
}

function checkLabels(expected: ExpectedError, error: Error): string | undefined {
  const hasLabel = (label: string) => error instanceof MongoError && error.hasErrorLabel(label);
  const missing = expected.errorLabelsContain?.find((label) => !hasLabel(label));
  if (missing) return `expected error label ${missing}`;
  const present = expected.errorLabelsOmit?.find((label) => hasLabel(label));
  return present ? `unexpected error label ${present}` : undefined;
}

function checkErrorResponse(
  expected: ExpectedError,
  error: Error,
  entities: MatchEntities,
): string | undefined {
  if (expected.errorResponse === undefined) return undefined;
  const response = (error as Error & { errorResponse?: Document }).errorResponse;
  if (!response) return "expected a server error response";
  return findDifference(expected.errorResponse, response, { root: true, entities, path: "errorResponse" });
}

function checkPartialResult(
  expected: ExpectedError,
  error: Error,
  entities: MatchEntities,
): string | undefined {
  if (!("expectResult" in expected)) return undefined;
  let result: unknown;
  if (error instanceof MongoBulkWriteError) result = error.result;
  if (error instanceof MongoClientBulkWriteError) result = error.partialResult;
  const path = "error result";
  return findDifference(expected.expectResult, resultDocument(result), { root: true, entities, path });
}

function checkClientBulkWriteErrors(expected: ExpectedError, error: Error, entities: MatchEntities) {
  if (expected.writeErrors === undefined && expected.writeConcernErrors === undefined) return undefined;
  if (!(error instanceof MongoClientBulkWriteError)) return `expected a client bulk write error`;
  if (expected.writeErrors !== undefined) {
    const actual = resultDocument(error.writeErrors) as Record<string, unknown>;
    const extra = Object.keys(actual).find((index) => !(index in expected.writeErrors!));
    if (extra !== undefined)
      return `unexpected write error at index ${extra}: ${describeValue(actual[extra])}`;
    for (const [index, writeError] of Object.entries(expected.writeErrors)) {
      const difference = findDifference(writeError, actual[index], {
        root: true,
        entities,
        path: `writeErrors.${index}`,
      });
      if (difference) return difference;
    }
  }
  if (expected.writeConcernErrors !== undefined) {
    const actual = error.writeConcernErrors;
    if (actual.length !== expected.writeConcernErrors.length) {
      return `expected ${expected.writeConcernErrors.length} write concern errors, got ${actual.length}`;
    }
    for (const [index, concernError] of expected.writeConcernErrors.entries()) {
      const path = `writeConcernErrors[${index}]`;
      const difference = findDifference(concernError, actual[index], { root: true, entities, path });
      if (difference) return difference;
    }
  }
  return undefined;
}
