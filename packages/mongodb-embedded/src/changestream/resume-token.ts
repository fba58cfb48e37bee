// Resume tokens: our own encoding, opaque to drivers (which only store and send back
// `{ _data: "<hex>" }`, as with mongod's KeyString tokens). A token names a position in the
// change log; resuming continues with the first event strictly after it. The hex string is
// built so that string order is position order, as mongod's tokens are.
import { Timestamp, type Document } from "bson";
import { ServerError } from "../errors.js";

/** What a token stands for at its (clusterTime, txnOpIndex). Order matters: see compare. */
export type TokenKind = "event" | "invalidate" | "highWaterMark";

export interface StreamPosition {
  /** The Timestamp as an unsigned 64-bit number (seconds << 32 | increment). */
  clusterTime: bigint;
  /** Index of the event inside its commit (transactions share one clusterTime). */
  txnOpIndex: number;
  kind: TokenKind;
  /** The 0-based fragment of an event $changeStreamSplitLargeEvent split; absent otherwise. */
  fragment?: number;
}

// mongod's tokens begin with their cluster time's KeyString type byte, 0x82 (key_string.cpp,
// CType::kTimestamp), then the time big-endian: ours too, so that a token's time reads alike.
const TOKEN_VERSION = "82";
const KIND_CODES: Record<TokenKind, string> = { event: "00", invalidate: "01", highWaterMark: "ff" };
/** A high-water mark sorts after every event of its cluster time. */
const HIGH_WATER_MARK_INDEX = 0xffffffff;
/** A fragment's token is its event's token and the fragment number: it sorts after the event's. */
const TOKEN_PATTERN = /^82([0-9a-f]{16})([0-9a-f]{8})(00|01|ff)([0-9a-f]{8})?$/;

export function timestampToBigInt(ts: Timestamp): bigint {
  return (BigInt(ts.t) << 32n) | BigInt(ts.i);
}

export function bigIntToTimestamp(value: bigint): Timestamp {
  return new Timestamp({ t: Number(value >> 32n), i: Number(value & 0xffffffffn) });
}

export function eventPosition(clusterTime: bigint, txnOpIndex: number): StreamPosition {
  return { clusterTime, txnOpIndex, kind: "event" };
}

/** "Everything committed at or before this cluster time has been seen." */
export function highWaterMark(clusterTime: bigint): StreamPosition {
  return { clusterTime, txnOpIndex: HIGH_WATER_MARK_INDEX, kind: "highWaterMark" };
}

/**
 * The position just past the record at `position` and before the next one: where a stream
 * that passed over a record it does not see stands (mongod's post-batch token moves past the
 * oplog entries a stream filters out, so that resuming there scans none of them again).
 */
export function passedOver(position: StreamPosition): StreamPosition {
  return { clusterTime: position.clusterTime, txnOpIndex: position.txnOpIndex, kind: "highWaterMark" };
}

/** The position just before the first event at `clusterTime` (startAtOperationTime). */
export function positionBefore(clusterTime: bigint): StreamPosition {
  return highWaterMark(clusterTime - 1n);
}

export function comparePositions(a: StreamPosition, b: StreamPosition): number {
  if (a.clusterTime !== b.clusterTime) return a.clusterTime < b.clusterTime ? -1 : 1;
  if (a.txnOpIndex !== b.txnOpIndex) return a.txnOpIndex < b.txnOpIndex ? -1 : 1;
  if (a.kind !== b.kind) return KIND_CODES[a.kind].localeCompare(KIND_CODES[b.kind]);
  return (a.fragment ?? -1) - (b.fragment ?? -1);
}

export function encodeResumeToken(position: StreamPosition): { _data: string } {
  const time = position.clusterTime.toString(16).padStart(16, "0");
  const index = position.txnOpIndex.toString(16).padStart(8, "0");
  const fragment = position.fragment === undefined ? "" : position.fragment.toString(16).padStart(8, "0");
  return { _data: `${TOKEN_VERSION}${time}${index}${KIND_CODES[position.kind]}${fragment}` };
}

/** Parses a token the driver sends back (resumeAfter / startAfter); mongod's codes when bad. */
export function decodeResumeToken(token: unknown, optionName: string): StreamPosition {
  const data = (token as Document | null)?._data;
  if (token === null || typeof token !== "object" || typeof data !== "string") {
    // mongod: ResumeToken::parse requires a string (or BinData) _data field.
    throw new ServerError(
      40647,
      "Location40647",
      `Bad resume token: _data of missing or of wrong type in '${optionName}': ${JSON.stringify(token)}`,
    );
  }
  const match = TOKEN_PATTERN.exec(data);
  if (!match) {
    throw new ServerError(
      260,
      "InvalidResumeToken",
      `Invalid resume token in '${optionName}': '${data}' was not issued by this server`,
    );
  }
  const [, time, index, kindCode, fragment] = match as unknown as [string, string, string, string, string?];
  const kind = (Object.keys(KIND_CODES) as TokenKind[]).find((k) => KIND_CODES[k] === kindCode);
  const position: StreamPosition = {
    clusterTime: BigInt(`0x${time}`),
    txnOpIndex: Number.parseInt(index, 16),
    kind: kind ?? "event",
  };
  if (fragment !== undefined) position.fragment = Number.parseInt(fragment, 16);
  return position;
}
