// The parts of a MongoDB connection string the configuration needs, without connecting:
// the database its path names, and a form safe to print (every secret in it masked).
import { CommaAndColonSeparatedRecord, ConnectionString } from "mongodb-connection-string-url";

const SCHEME = /^mongodb(\+srv)?:\/\//;
const MASK = "****";

// The secrets a connection string may carry beside its password (the driver's options, in its
// connection_string.ts): options whose value is one, and authMechanismProperties entries that
// are (MONGODB-AWS's session token). The driver reads option names in any case.
const SECRET_OPTIONS = ["tlsCertificateKeyFilePassword", "proxyPassword"];
const SECRET_MECHANISM_PROPERTIES = ["AWS_SESSION_TOKEN"];
const MECHANISM_PROPERTIES = "authMechanismProperties";

export function isMongoUri(uri: string): boolean {
  return SCHEME.test(uri);
}

/**
 * A connection string fit to print: its password and secret options masked, as the driver's
 * own parser reads them (a raw space or "@" in the password included); the options as the
 * driver reads them, decoded. One the parser rejects is masked as text.
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
  const options = [...parsed.searchParams].map(([name, value]) => `${name}=${maskedOption(name, value)}`);
  const query = options.length === 0 ? "" : `?${options.join("&")}`;
  return `${parsed.protocol}//${userinfo}${parsed.hosts.join(",")}${parsed.pathname}${query}${parsed.hash}`;
}

function maskedOption(name: string, value: string): string {
  if (SECRET_OPTIONS.some((secret) => sameName(secret, name))) return MASK;
  if (!sameName(name, MECHANISM_PROPERTIES)) return value;
  const properties = new CommaAndColonSeparatedRecord(value);
  for (const property of SECRET_MECHANISM_PROPERTIES)
    if (properties.has(property)) properties.set(property, MASK);
  return properties.toString();
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * `text` (an error's message, a log line) with every secret of the connection strings it
 * quotes replaced by `****`, in linear time: errors are masked before they are logged,
 * whatever they quote. Secret options are found by name, wherever they stand.
 */
export function redactUriPasswords(text: string): string {
  return maskSecretOptions(maskPasswords(text));
}

/**
 * `text` with the password of every `scheme://user:password@` in it masked, in one pass. Any
 * scheme: a mistyped one ("mongdb://") must not leak its password either. The userinfo runs to
 * the last "@" before the first "/" (the connection-string spec has "/" percent-encoded before
 * the path) or the end of the line; the password may hold raw spaces and "@"s, which the
 * driver accepts or which a mistyped URI holds, and must not leak their tail.
 */
function maskPasswords(text: string): string {
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

// A secret option's name and what starts its value: `name=`, or `NAME:` (or `NAME%3A`) in
// authMechanismProperties. Literals only: the search is linear.
const SECRET_OPTION_NAMES = new RegExp(
  [
    ...SECRET_OPTIONS.map((name) => `${name}=`),
    ...SECRET_MECHANISM_PROPERTIES.map((name) => `${name}(?::|%3A)`),
  ].join("|"),
  "gi",
);

/**
 * `text` with the value of every secret option masked. Lenient, as for passwords: the value
 * runs to the next option ("&", or "," between mechanism properties) or the end of the line,
 * raw spaces included. A value already masked (a message quoting a masked URI) stays as it is.
 */
function maskSecretOptions(text: string): string {
  let masked = "";
  let copied = 0;
  for (const match of text.matchAll(SECRET_OPTION_NAMES)) {
    const start = match.index + match[0].length;
    if (match.index < copied || text.startsWith(MASK, start)) continue;
    const property = !match[0].endsWith("=");
    const end = optionValueEnd(text, start, property);
    masked += `${text.slice(copied, start)}${MASK}`;
    copied = end;
  }
  return copied === 0 ? text : masked + text.slice(copied);
}

function optionValueEnd(text: string, start: number, property: boolean): number {
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === "&" || char === "\n" || char === "\r" || (property && char === ",")) return i;
  }
  return text.length;
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
