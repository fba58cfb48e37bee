// What one change event asks the sidecar to correct. A target's key orders corrections of
// the same document (src/stream/events/key-queue.ts); which targets an event yields is each rule's
// driver's call.
import { BSON } from "mongodb";
import type { CorrectionTarget, PatternRule, ProjectedChangeEvent } from "../../patterns/driver.js";
import { driverOf } from "../../patterns/registry.js";
import { numbersByValue, verbatim } from "../../patterns/bson/bson-value.js";
import { extended } from "../../patterns/bson/extended.js";

export type { CorrectionTarget, ProjectedChangeEvent };

/**
 * Orders corrections: targets of one key run one after another, in the order of their events.
 * Ids compare by value (an event's Long and a sweep's number are one document), printed as
 * before ids were read verbatim, since parked targets store the key.
 */
export function targetKey(target: CorrectionTarget): string {
  const id = numbersByValue(target.id);
  return `${target.rule.name}|${target.collection}|${BSON.EJSON.stringify({ id }, { relaxed: false })}`;
}

/** A rule's metric labels: its name and its collection. */
export function ruleLabels(rule: PatternRule) {
  return { rule: rule.name, collection: rule.collection };
}

/** A target's metric labels: its rule's. */
export function targetLabels(target: CorrectionTarget) {
  return ruleLabels(target.rule);
}

/** The rules of `targets`, each once: an event counts once per rule, however many documents it names. */
export function rulesOf(targets: readonly CorrectionTarget[]): PatternRule[] {
  return [...new Set(targets.map((target) => target.rule))];
}

/** What a log line or an error's context says of a target: its labels and its document key. */
export function targetFields(target: CorrectionTarget) {
  return extended(targetLabels(target), { key: target.id });
}

// Per rule set (the runner keeps one for its life), counted once rather than for every event.
const watchersCache = new WeakMap<readonly PatternRule[], Map<string, number>>();

/** How many rules watch each collection. */
function watchersByCollection(rules: readonly PatternRule[]): Map<string, number> {
  let counts = watchersCache.get(rules);
  if (!counts) {
    counts = new Map();
    for (const rule of rules)
      for (const collection of new Set(driverOf(rule).stream.watchedCollections(rule)))
        counts.set(collection, (counts.get(collection) ?? 0) + 1);
    watchersCache.set(rules, counts);
  }
  return counts;
}

/** Every correction one event may need; an event of a collection several rules watch yields several. */
export function targetsForEvent(
  rules: readonly PatternRule[],
  event: ProjectedChangeEvent,
): CorrectionTarget[] {
  const collection = event.ns?.coll;
  // [null] for an event without a document key (a drop, an invalidate).
  const [key] = event.documentKeyRaw ?? [];
  const id: unknown = key === undefined || key === null ? undefined : verbatim(key)._id;
  if (collection === undefined || id === undefined) return [];
  const write = {
    operationType: event.operationType,
    collection,
    id,
    fullDocument: event.fullDocument,
    fieldsPresent: event.fieldsPresent,
    fullDocumentBeforeChange: event.fullDocumentBeforeChange ?? undefined,
    positionsSet:
      event.positionsSet && new Map(event.positionsSet.map(verbatim).map(({ k, v }) => [k as string, v])),
    fieldsSet: event.fieldsSet && Object.fromEntries(event.fieldsSet.map(({ k, v }) => [k, v])),
    fieldsRemoved: event.fieldsRemoved,
  };
  // The event passed the $or of every rule's filters: it shows what one rule's filter says
  // only when no other rule watches the collection.
  const watchedAlone = watchersByCollection(rules).get(collection) === 1;
  return rules.flatMap((rule) =>
    driverOf(rule)
      .stream.targetsOf(rule, write)
      .map((target) =>
        watchedAlone && driverOf(rule).stream.eventShowsBroken?.(rule, write, target)
          ? extended(target, { due: true })
          : target,
      ),
  );
}

/** Collections whose changes matter to the rules. */
export function watchedCollections(rules: readonly PatternRule[]): string[] {
  return [...new Set(rules.flatMap((rule) => driverOf(rule).stream.watchedCollections(rule)))];
}
