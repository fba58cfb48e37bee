// Checks across rules that no single rule's schema can make: every rule has a unique name
// (logs, metrics and stored resume state are keyed by it), no two rules enforce a pattern on
// the same array, and no collection a rule owns (an overflow or full set, as its driver
// says) is used by another rule: either would make them fight over the same documents.
import type { z } from "zod";
import { quoted } from "../patterns/bson/quoted-value.js";
import { driverFor } from "../patterns/registry.js";

interface RuleIdentity {
  name?: string | undefined;
  pattern: string;
  collection: string;
  arrayField: string;
}

/** Rules with `name` defaulted to `<collection>.<arrayField>`. */
export function withDefaultNames<T extends RuleIdentity>(rules: T[]): Array<T & { name: string }> {
  return rules.map((rule) => ({ ...rule, name: rule.name ?? `${rule.collection}.${rule.arrayField}` }));
}

/** The collections a rule writes besides its own, by the key that names each. */
function ownedCollections(rule: RuleIdentity): { key: string; collection: string }[] {
  const keys = driverFor(rule.pattern).ownedCollectionKeys;
  return keys.map((key) => ({ key, collection: String((rule as unknown as Record<string, unknown>)[key]) }));
}

function collectionsOf(rule: RuleIdentity): string[] {
  return [rule.collection, ...ownedCollections(rule).map((owned) => owned.collection)];
}

function checkRule(rule: RuleIdentity, index: number, ctx: z.RefinementCtx, seen: SeenRules): void {
  const name = rule.name ?? `${rule.collection}.${rule.arrayField}`;
  const namedBefore = seen.names.get(name);
  if (namedBefore !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["rules", index, "name"],
      message: `rule name ${quoted(name)} is already used by rules[${namedBefore}]; names must be unique`,
    });
  }
  seen.names.set(name, index);
  const target = `${rule.collection}.${rule.arrayField}`;
  const targetedBefore = seen.targets.get(target);
  if (targetedBefore !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["rules", index, "arrayField"],
      message: `${target} is already enforced by rules[${targetedBefore}]; one rule per collection and array field`,
    });
  }
  seen.targets.set(target, index);
}

// The sidecar writes a rule's owned collections and reacts to writes there; a second rule
// watching the same collection would correct the same documents its own way.
function checkOwnedCollections(rules: readonly RuleIdentity[], index: number, ctx: z.RefinementCtx): void {
  const rule = rules[index]!;
  for (const { key, collection } of ownedCollections(rule)) {
    const path = ["rules", index, key];
    if (collection === rule.collection) {
      ctx.addIssue({
        code: "custom",
        path,
        message: `expected a collection other than the rule's own collection ${quoted(rule.collection)}`,
      });
      continue;
    }
    const other = rules.findIndex(
      (candidate, i) => i !== index && collectionsOf(candidate).includes(collection),
    );
    if (other !== -1) {
      ctx.addIssue({
        code: "custom",
        path,
        message: `expected a collection no other rule uses; rules[${other}] uses ${quoted(collection)}`,
      });
    }
  }
}

interface SeenRules {
  names: Map<string, number>;
  targets: Map<string, number>;
}

export function checkRuleSet(
  config: { rules: readonly RuleIdentity[]; stateCollection: string },
  ctx: z.RefinementCtx,
): void {
  const seen: SeenRules = { names: new Map(), targets: new Map() };
  config.rules.forEach((rule, index) => {
    checkRule(rule, index, ctx, seen);
    checkOwnedCollections(config.rules, index, ctx);
  });
  const stateClash = config.rules.findIndex((rule) => collectionsOf(rule).includes(config.stateCollection));
  if (stateClash !== -1) {
    ctx.addIssue({
      code: "custom",
      path: ["stateCollection"],
      message: `expected a collection no rule uses; rules[${stateClash}] uses ${quoted(config.stateCollection)}`,
    });
  }
}
