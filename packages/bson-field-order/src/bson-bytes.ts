// Reading a BSON document's bytes without decoding it: lengths, names and where values end
// (bsonspec.org/spec.html), enough to find integer-like field names.
export const EMBEDDED_DOCUMENT = 0x03;
export const ARRAY = 0x04;
export const CODE_WITH_SCOPE = 0x0f;

/** The little-endian int32 at `at` (a document's or a string's length). */
export function readInt32(bytes: Uint8Array, at: number): number {
  // Past the end a byte reads as undefined, which `|` and `<<` take as 0.
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/** The index of the zero byte that ends the cstring starting at `at`. */
export function cstringEnd(bytes: Uint8Array, at: number): number {
  // A loop rather than indexOf: names are short, and the builtin's call costs more than the scan.
  for (let end = at; end < bytes.length; end++) if (bytes[end] === 0) return end;
  throw new RangeError(`BSON cstring at byte ${at} has no terminating zero`);
}

/** Where the value of an element of `type` that starts at `at` ends. */
export function valueEnd(bytes: Uint8Array, type: number, at: number): number {
  switch (type) {
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // maxKey
    case 0xff: // minKey
      return at;
    case 0x08: // bool
      return at + 1;
    case 0x10: // int32
      return at + 4;
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return at + 8;
    case 0x07: // objectId
      return at + 12;
    case 0x13: // decimal128
      return at + 16;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: // symbol
      return at + 4 + readInt32(bytes, at);
    case 0x05: // binary: length, subtype, bytes
      return at + 5 + readInt32(bytes, at);
    case 0x0b: // regex: pattern and options, two cstrings
      return cstringEnd(bytes, cstringEnd(bytes, at) + 1) + 1;
    case 0x0c: // dbPointer: string, then an ObjectId
      return at + 4 + readInt32(bytes, at) + 12;
    default: // embedded document, array, code with scope: length first
      return at + readInt32(bytes, at);
  }
}

/** Whether the name in bytes [start, end) is one JS enumerates first: an index up to 2^32 - 2. */
export function isIntegerName(bytes: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  const first = bytes[start];
  if (first === undefined || length === 0 || length > 10 || first < 0x30 || first > 0x39) return false;
  if (first === 0x30 && length > 1) return false;
  let value = 0;
  for (let at = start; at < end; at++) {
    const digit = (bytes[at] ?? 0) - 0x30;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value <= 4294967294;
}

/** Whether the name in bytes [start, end) is `$ref`: the document may decode to a DBRef. */
function isRefName(bytes: Uint8Array, start: number, end: number): boolean {
  return (
    end - start === 4 &&
    bytes[start] === 0x24 &&
    bytes[start + 1] === 0x72 &&
    bytes[start + 2] === 0x65 &&
    bytes[start + 3] === 0x66
  );
}

/**
 * Whether the document (or array) at `start` has a field whose place js-bson would not keep,
 * or, when `deep`, any document inside it has: an integer-like name, which JS lists first,
 * or `$ref`, whose DBRef js-bson writes as `$ref`, `$id`, `$db`, then the rest. An array's own
 * names are its indexes, which JS keeps.
 */
export function hasReorderedName(bytes: Uint8Array, start: number, isArray: boolean, deep: boolean): boolean {
  const end = start + readInt32(bytes, start) - 1;
  let at = start + 4;
  while (at < end) {
    const type = bytes[at++];
    const nameStart = at;
    const first = bytes[at] ?? 0;
    at = cstringEnd(bytes, at);
    // Most names start with a letter: one comparison rules them out.
    if (!isArray && first <= 0x39 && (isIntegerName(bytes, nameStart, at) || isRefName(bytes, nameStart, at)))
      return true;
    at++;
    const inner = deep ? innerDocument(bytes, type, at) : undefined;
    if (inner !== undefined && hasReorderedName(bytes, inner, type === ARRAY, true)) return true;
    at = valueEnd(bytes, type ?? 0, at);
  }
  return false;
}

/** Where the document inside an element's value starts (a document, an array, a code's scope). */
export function innerDocument(bytes: Uint8Array, type: number | undefined, at: number): number | undefined {
  if (type === EMBEDDED_DOCUMENT || type === ARRAY) return at;
  // Code with scope: its total length, the code as a string (length first), then the scope.
  if (type === CODE_WITH_SCOPE) return at + 8 + readInt32(bytes, at + 4);
  return undefined;
}
