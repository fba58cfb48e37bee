// Recording, on a document js-bson decoded, the field order of the bytes it was decoded from
// (README.md). A scan of the bytes (no allocation) finds the rare document that needs it.
import {
  cstringEnd,
  hasReorderedName,
  innerDocument,
  readInt32,
  ARRAY,
  CODE_WITH_SCOPE,
  valueEnd,
} from "./bson-bytes.js";
import { keepFieldOrder, orderedDocument } from "./field-order.js";

/**
 * `decoded`, which js-bson decoded from `bytes`, with the bytes' field order recorded on it
 * and on the documents inside it wherever JS lists their keys otherwise.
 */
export function withFieldOrderOf<T extends object>(bytes: Uint8Array, decoded: T): T {
  if (hasReorderedName(bytes, 0, false, true)) restoreFieldOrder(bytes, 0, false, decoded);
  return decoded;
}

const utf8 = new TextDecoder();

/** Records the order of the bytes on the decoded documents that need it, at `start` and under it. */
function restoreFieldOrder(bytes: Uint8Array, start: number, isArray: boolean, value: object): void {
  const container = value as Record<string, unknown>;
  const names: string[] | undefined =
    !isArray && hasReorderedName(bytes, start, false, false) ? [] : undefined;
  const end = start + readInt32(bytes, start) - 1;
  let at = start + 4;
  let index = 0;
  while (at < end) {
    const type = bytes[at++] ?? 0;
    const nameStart = at;
    at = cstringEnd(bytes, at);
    const nameEnd = at++;
    const inner = innerDocument(bytes, type, at);
    const nested = inner !== undefined && hasReorderedName(bytes, inner, type === ARRAY, true);
    // Names are decoded only where they are recorded or lead to a document that needs it.
    const name =
      isArray || (names === undefined && !nested)
        ? undefined
        : utf8.decode(bytes.subarray(nameStart, nameEnd));
    if (name !== undefined) names?.push(name);
    if (nested) {
      const child = name === undefined ? (value as unknown[])[index] : container[name];
      restoreInner(bytes, inner, type, child);
    }
    at = valueEnd(bytes, type, at);
    index++;
  }
  if (names !== undefined) keepFieldOrder(container, names);
}

/** Restores the order of `child`, decoded from the document at `start`, whatever it decoded to. */
function restoreInner(bytes: Uint8Array, start: number, type: number, child: unknown): void {
  if (type === CODE_WITH_SCOPE) {
    const scope = (child as { scope?: unknown }).scope;
    if (isPlainContainer(scope)) restoreFieldOrder(bytes, start, false, scope);
  } else if (isDBRef(child)) {
    keepDBRefOrder(bytes, start, child);
  } else if (isPlainContainer(child)) {
    restoreFieldOrder(bytes, start, type === ARRAY, child);
  }
}

interface DBRefLike {
  _bsontype: "DBRef";
  collection: string;
  oid: unknown;
  db?: string;
  fields: Record<string, unknown>;
}

function isDBRef(value: unknown): value is DBRefLike {
  return (
    typeof value === "object" && value !== null && (value as { _bsontype?: unknown })._bsontype === "DBRef"
  );
}

/**
 * js-bson writes a DBRef as `$ref`, `$id`, `$db`, then its other fields in JS order (integer-like
 * names ahead of all, `$ref` included): given a toBSON, it is written as the document it was read from.
 */
function keepDBRefOrder(bytes: Uint8Array, start: number, dbref: DBRefLike): void {
  const written = orderedDocument([
    ["$ref", dbref.collection],
    ["$id", dbref.oid],
    ...(dbref.db === undefined ? [] : [["$db", dbref.db] as const]),
    ...Object.entries(dbref.fields),
  ]);
  restoreFieldOrder(bytes, start, false, written);
  Object.defineProperty(dbref, "toBSON", { value: () => written, configurable: true, writable: true });
}

function isPlainContainer(value: unknown): value is object {
  return (
    Array.isArray(value) ||
    (typeof value === "object" &&
      value !== null &&
      (value as { _bsontype?: unknown })._bsontype === undefined)
  );
}
