// Collations as string comparators: a validated collation document becomes a
// StringComparator built on Intl.Collator (ICU, as in mongod). The simple collation is
// `undefined` everywhere, which callers read as "binary comparison, indexes usable".
import { compareBinaryStrings, type StringComparator } from "./bson-order.js";
import { languageTagOf } from "./collation-locale.js";
import { parseCollation, type CollationSpec } from "./collation-spec.js";

export type { StringComparator } from "./bson-order.js";
export { parseCollation, type CollationSpec } from "./collation-spec.js";

/** Intl's sensitivity for a strength: 1 base letters, 2 accents too, 3+ case and variants. */
function sensitivityOf(spec: CollationSpec): Intl.CollatorOptions["sensitivity"] {
  if (spec.strength === 1) return spec.caseLevel ? "case" : "base";
  if (spec.strength === 2) return spec.caseLevel ? "variant" : "accent";
  return "variant";
}

/**
 * The comparator for a parsed collation (undefined for simple). Strength 4 equals 3 here
 * because "shifted" (the only thing a quaternary level adds) is refused; strength 5 breaks
 * remaining ties by code units of the NFD forms, as ICU's identical level does.
 */
function buildComparator(spec: CollationSpec): StringComparator {
  const collator = new Intl.Collator(languageTagOf(spec.locale), {
    usage: "sort",
    sensitivity: sensitivityOf(spec),
    caseFirst: spec.caseFirst === "off" ? "false" : spec.caseFirst,
    numeric: spec.numericOrdering,
  });
  if (spec.strength < 5) return (a, b) => collator.compare(a, b);
  return (a, b) => collator.compare(a, b) || compareBinaryStrings(a.normalize("NFD"), b.normalize("NFD"));
}

const cache = new Map<string, StringComparator>();
const CACHE_LIMIT = 64;

/**
 * The string order of a parsed collation; undefined (binary) for the simple collation.
 * Building an ICU collator costs far more than a comparison, so comparators are cached.
 */
export function stringComparatorFor(spec: CollationSpec | undefined): StringComparator | undefined {
  if (spec === undefined) return undefined;
  const key = JSON.stringify(spec);
  let comparator = cache.get(key);
  if (comparator === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    comparator = buildComparator(spec);
    cache.set(key, comparator);
  }
  return comparator;
}

/** Validates a command's `collation` value (named `field` in errors) and returns its order. */
export function collatorFor(raw: unknown, field = "collation"): StringComparator | undefined {
  return stringComparatorFor(parseCollation(raw, field));
}
