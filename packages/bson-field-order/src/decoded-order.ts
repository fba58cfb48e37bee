// Recording, on a document js-bson decoded, the field order of the bytes it was decoded from
// (README.md). A scan of the bytes (no allocation) finds the rare document that needs it.
import { cstringEnd, hasIntegerName, isContainer, readInt32, ARRAY, valueEnd } from "./bson-bytes.js";
import { keepFieldOrder } from "./field-order.js";

/**
 * `decoded`, which js-bson decoded from `bytes`, with the bytes' field order recorded on it
 * and on the documents inside it wherever JS lists their keys otherwise.
 */
export function withFieldOrderOf<T extends object>(bytes: Uint8Array, decoded: T): T {
  if (hasIntegerName(bytes, 0, false, true)) restoreFieldOrder(bytes, 0, false, decoded);
  return decoded;
}

const utf8 = new TextDecoder();

/** Records the order of the bytes on the decoded documents that need it, at `start` and under it. */
function restoreFieldOrder(bytes: Uint8Array, start: number, isArray: boolean, value: object): void {
  const container = value as Record<string, unknown>;
  const names: string[] | undefined = !isArray && hasIntegerName(bytes, start, false, false) ? [] : undefined;
  const end = start + readInt32(bytes, start) - 1;
  let at = start + 4;
  let index = 0;
  while (at < end) {
    const type = bytes[at++] ?? 0;
    const nameStart = at;
    at = cstringEnd(bytes, at);
    const nameEnd = at++;
    const nested = isContainer(type) && hasIntegerName(bytes, at, type === ARRAY, true);
    // Names are decoded only where they are recorded or lead to a document that needs it.
    const name =
      isArray || (names === undefined && !nested)
        ? undefined
        : utf8.decode(bytes.subarray(nameStart, nameEnd));
    if (name !== undefined) names?.push(name);
    if (nested) {
      const child = name === undefined ? (value as unknown[])[index] : container[name];
      // A {$ref, $id} document decodes to a DBRef, not a plain object: left as it is.
      if (isPlainContainer(child)) restoreFieldOrder(bytes, at, type === ARRAY, child);
    }
    at = valueEnd(bytes, type, at);
    index++;
  }
  if (names !== undefined) keepFieldOrder(container, names);
}

function isPlainContainer(value: unknown): value is object {
  return (
    Array.isArray(value) ||
    (typeof value === "object" &&
      value !== null &&
      (value as { _bsontype?: unknown })._bsontype === undefined)
  );
}
