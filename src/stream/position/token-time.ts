// The cluster time a resume token stands at, to compare a stored position with the time noted
// before a sweep (docs/semantics.md, "Sweeps by partition").
import { Timestamp, type Document } from "mongodb";

/**
 * mongod's `_data` is a KeyString whose first value is the cluster time: the Timestamp type
 * byte (CType::kTimestamp, 130, src/mongo/db/storage/key_string.cpp) and 8 bytes big-endian.
 */
const KEYSTRING_TIMESTAMP = /^82([0-9a-fA-F]{16})/;

/** The token's cluster time; undefined for a format it does not read. */
export function tokenClusterTime(token: Document): Timestamp | undefined {
  const data = (token as { _data?: unknown })._data;
  const match = typeof data === "string" ? KEYSTRING_TIMESTAMP.exec(data) : null;
  if (!match) return undefined;
  const value = BigInt(`0x${match[1]}`);
  return new Timestamp({ t: Number(value >> 32n), i: Number(value & 0xffffffffn) });
}

/** A timestamp's order as one number: seconds, then the increment. */
export function timeOrder(time: Timestamp): bigint {
  return (BigInt(time.high >>> 0) << 32n) | BigInt(time.low >>> 0);
}
