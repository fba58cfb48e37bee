// The parts of a MongoDB connection string the configuration needs, without connecting:
// the database its path names, and a form safe to print (the password masked).
import { ConnectionString } from "mongodb-connection-string-url";

const SCHEME = /^mongodb(\+srv)?:\/\//;
const MASK = "****";

export function isMongoUri(uri: string): boolean {
  return SCHEME.test(uri);
}

/**
 * A connection string fit to print: its password masked, as the driver's own parser reads it
 * (a raw space or "@" in the password included). One the parser rejects is masked as text.
 */
export function redactUri(uri: string): string {
  let parsed: ConnectionString;
  try {
    parsed = new ConnectionString(uri);
  } catch {
    return redactUriPasswords(uri);
  }
  const password = parsed.password === "" ? "" : `:${MASK}`;
  const userinfo = parsed.username === "" && password === "" ? "" : `${parsed.username}${password}@`;
  return `${parsed.protocol}//${userinfo}${parsed.hosts.join(",")}${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/**
 * `text` (an error's message, a log line) with the password of every connection string it
 * quotes, `scheme://user:password@`, replaced by `****`, in one pass: errors are masked before
 * they are logged, whatever they quote, so this is linear in the length of `text`. Any
 * scheme: a mistyped one ("mongdb://") must not leak its password either. The userinfo runs to
 * the last "@" before the first "/" (the connection-string spec has "/" percent-encoded before
 * the path) or the end of the line; the password may hold raw spaces and "@"s, which the
 * driver accepts or which a mistyped URI holds, and must not leak their tail.
 */
export function redactUriPasswords(text: string): string {
  let masked = "";
  let copied = 0;
  for (let separator = text.indexOf("://"); separator !== -1;) {
    const start = separator + 3;
    const end = authorityEnd(text, start);
    const at = lastIndexIn(text, "@", start, end);
    const colon = at === -1 ? -1 : firstIndexIn(text, ":", start, at);
    if (colon !== -1) {
      masked += `${text.slice(copied, colon + 1)}${MASK}`;
      copied = at;
    }
    // Regions do not overlap: the next "://" starts at or after this one's "/".
    separator = text.indexOf("://", Math.max(end - 1, start));
  }
  return copied === 0 ? text : masked + text.slice(copied);
}

/** Where the authority starting at `start` ends: the first "/" or line break, or the end of `text`. */
function authorityEnd(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === "/" || char === "\n" || char === "\r") return i;
  }
  return text.length;
}

// Searches bounded to one region, unlike indexOf and lastIndexOf: each character of the text
// is looked at a bounded number of times however many URIs it holds.
function firstIndexIn(text: string, char: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (text[i] === char) return i;
  return -1;
}

function lastIndexIn(text: string, char: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) if (text[i] === char) return i;
  return -1;
}

/** The database a URI's path names (`mongodb://host/shop?x=1` -> "shop"), if any. */
export function databaseOfUri(uri: string): string | undefined {
  // The connection-string spec requires "/" to be percent-encoded in userinfo and socket
  // paths, so the first "/" after the scheme starts the path.
  const rest = uri.replace(SCHEME, "");
  const slash = rest.indexOf("/");
  if (slash === -1) return undefined;
  const path = rest.slice(slash + 1).split("?")[0] ?? "";
  return path === "" ? undefined : decodeURIComponent(path);
}
