// mongod names locales with ICU IDs ("en_US", "zh_Hant", "de@collation=phonebook");
// Intl.Collator takes BCP 47 tags ("en-US", "de-u-co-phonebk"). mongod refuses an ID that ICU
// would have to fall back from or canonicalise ("en_ZZ" -> "en"), naming the locale it would
// have used; we ask Intl which locale it resolved to and refuse in the same cases.
import { ErrorCode, ServerError } from "../errors.js";
import { queryError } from "./query-error.js";

/** ICU collation keywords whose BCP 47 names differ. */
const KEYWORD_TYPES: Record<string, string> = {
  phonebook: "phonebk",
  dictionary: "dict",
  traditional: "trad",
  gb2312han: "gb2312",
};

interface LocaleParts {
  /** "en_US" */
  readonly base: string;
  /** The ICU collation keyword ("phonebook"), if any. */
  readonly keyword?: string;
}

function splitLocaleId(locale: string): LocaleParts | undefined {
  const [base, keywords, ...rest] = locale.split("@");
  if (rest.length > 0 || base === undefined) return undefined;
  if (keywords === undefined) return { base };
  const match = /^collation=([a-z0-9]+)$/.exec(keywords);
  return match ? { base, keyword: match[1] } : undefined;
}

/** The BCP 47 tag for a mongod locale ID, e.g. "de@collation=phonebook" -> "de-u-co-phonebk". */
export function languageTagOf(locale: string): string {
  const parts = splitLocaleId(locale);
  if (!parts) return locale;
  const tag = parts.base.replace(/_/g, "-");
  return parts.keyword === undefined ? tag : `${tag}-u-co-${KEYWORD_TYPES[parts.keyword] ?? parts.keyword}`;
}

/** "en-US-u-kn" -> "en_US": the locale part of a resolved tag, written as an ICU ID. */
function localeIdOf(tag: string): string {
  return tag.split("-u-")[0]!.replace(/-/g, "_");
}

/**
 * Checks that Intl.Collator serves `locale` exactly (BadValue like mongod when it does not);
 * `shownSpec` is the collation document for the message. Returns the BCP 47 tag.
 */
export function resolveLocale(locale: string, shownSpec: string): string {
  const parts = splitLocaleId(locale);
  const tag = languageTagOf(locale);
  let resolved: Intl.ResolvedCollatorOptions;
  try {
    if (!parts) throw new RangeError("malformed locale ID");
    resolved = new Intl.Collator(tag).resolvedOptions();
  } catch {
    throw queryError("BadValue", `Field 'locale' is not valid in: ${shownSpec}`);
  }
  const resolvedId = localeIdOf(resolved.locale);
  if (resolvedId !== parts!.base) throw invalidLocale(parts!.base, resolvedId, shownSpec);
  const wantedType =
    parts!.keyword === undefined ? "default" : (KEYWORD_TYPES[parts!.keyword] ?? parts!.keyword);
  if (resolved.collation !== wantedType) {
    // A valid ICU keyword (es@collation=search) that this runtime's Intl does not offer.
    throw new ServerError(
      ErrorCode.NotImplemented,
      "NotImplemented",
      `collation locale '${locale}' is not supported by the embedded server in: ${shownSpec}`,
    );
  }
  return tag;
}

/** mongod suggests the locale ICU fell back to, unless it fell back to the root locale. */
function invalidLocale(requested: string, resolvedId: string, shownSpec: string): ServerError {
  const sameLanguage = requested.split("_")[0]!.toLowerCase() === resolvedId.split("_")[0]!.toLowerCase();
  const suggestion = sameLanguage ? `. Did you mean '${resolvedId}'?` : "";
  return queryError("BadValue", `Field 'locale' is invalid in: ${shownSpec}${suggestion}`);
}
