// The parts of a MongoDB connection string the configuration needs, without connecting:
// the database its path names, and a form safe to print (the password masked).

const SCHEME = /^mongodb(\+srv)?:\/\//;
// The password runs to the last "@" before the path (it should be percent-encoded, but be
// lenient when masking: a raw "@" in it must not leak its tail).
// Any scheme: a mistyped one ("mongdb://") must not leak its password either.
const PASSWORD_IN_URI = /([a-z][a-z0-9+.-]*:\/\/[^:@/\s]*:)[^\s/]*@/gi;

export function isMongoUri(uri: string): boolean {
  return SCHEME.test(uri);
}

/** `uri` (or any text holding URIs) with every password replaced by `****`. */
export function redactUriPasswords(text: string): string {
  return text.replace(PASSWORD_IN_URI, "$1****@");
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
