// How messages and log lines quote a value from a document (or from anywhere outside): whole
// when short, else its first few hundred bytes and its full size. A 5 MiB string in a watched
// array must not make a skip message, the log line, or the masking that scans both, 5 MiB long.

/** Bytes of a value a message quotes before cutting it. */
export const QUOTED_BYTES = 256;

/**
 * `value` as a message quotes it: a string as JSON (`"abc"`), anything else as its JSON text;
 * past QUOTED_BYTES cut, with its full size: `"abc…" (5242880 bytes)`.
 */
export function quoted(value: unknown): string {
  if (typeof value === "string") {
    const cut = cutToBytes(value, QUOTED_BYTES);
    return cut === undefined
      ? JSON.stringify(value)
      : `${JSON.stringify(`${cut.head}…`)} (${cut.bytes} bytes)`;
  }
  return shortened(jsonText(value), QUOTED_BYTES);
}

/** `text` whole if it fits in `maxBytes`, else its first `maxBytes` and its full size: `abc… (5242880 bytes)`. */
export function shortened(text: string, maxBytes: number): string {
  const cut = cutToBytes(text, maxBytes);
  return cut === undefined ? text : `${cut.head}… (${cut.bytes} bytes)`;
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a BigInt, a cycle
  }
}

/** The longest start of `text` within `maxBytes` of UTF-8 (whole characters), if `text` is longer. */
function cutToBytes(text: string, maxBytes: number): { head: string; bytes: number } | undefined {
  // At most 3 bytes per UTF-16 unit: most texts are decided without counting.
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= maxBytes) return undefined;
  let end = 0;
  let size = 0;
  while (end < text.length) {
    const code = text.codePointAt(end)!;
    const length = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (size + length > maxBytes) break;
    size += length;
    end += code < 0x10000 ? 1 : 2;
  }
  return { head: text.slice(0, end), bytes };
}
