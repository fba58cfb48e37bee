// The one list of patterns: rule.pattern -> driver. Nothing outside src/patterns/ and the
// configuration schema's union (built here) names a pattern.
import { z } from "zod";
import { UnknownPatternError } from "../errors.js";
import { bucketDriver } from "./bucket/index.js";
import { bucketRuleSchema, type BucketRule } from "./bucket/rule.js";
import type { PatternDriver, PatternRule, StateRecords } from "./driver.js";
import { outlierDriver } from "./outlier/index.js";
import { outlierRuleSchema, type OutlierRule } from "./outlier/rule.js";
import { subsetDriver } from "./subset/index.js";
import { subsetRuleSchema, type SubsetRule } from "./subset/rule.js";

/** One rule of any built-in pattern, as the configuration file states it. */
export const builtInRuleSchema = z.discriminatedUnion("pattern", [
  outlierRuleSchema,
  bucketRuleSchema,
  subsetRuleSchema,
]);

/** A rule of any built-in pattern, with its defaults filled in. */
export type BuiltInRule = OutlierRule | BucketRule | SubsetRule;

const drivers = new Map<string, PatternDriver>(
  [outlierDriver, bucketDriver, subsetDriver].map((driver) => [driver.pattern, driver as PatternDriver]),
);

/** With no rules configured: one rule of each built-in pattern, with the seeds' defaults. */
export const defaultRules = builtInRuleSchema.options.map((schema) => ({
  pattern: schema.shape.pattern.value,
}));

/**
 * Adds a pattern beside the built-in ones (rules naming it can then be run, though the
 * configuration file only accepts built-in patterns). Tests use it to prove that a new
 * pattern needs no change outside its folder.
 */
export function registerPattern<R extends PatternRule>(driver: PatternDriver<R>): void {
  drivers.set(driver.pattern, driver as unknown as PatternDriver);
}

/** The driver registered for `pattern`. */
export function driverFor(pattern: string): PatternDriver {
  const driver = drivers.get(pattern);
  if (!driver) {
    throw new UnknownPatternError(
      `no pattern named ${JSON.stringify(pattern)}; expected one of ${[...drivers.keys()].join(", ")}`,
      { pattern },
    );
  }
  return driver;
}

/** The driver of a rule's pattern, typed for the rule. */
export function driverOf<R extends PatternRule>(rule: R): PatternDriver<R> {
  return driverFor(rule.pattern) as unknown as PatternDriver<R>;
}

/** The state records of the rules' patterns (PatternDriver.stateRecords), each pattern's once. */
export function stateRecordsOf(rules: readonly PatternRule[]): StateRecords[] {
  const records = new Set<StateRecords>();
  for (const rule of rules) {
    const own = driverOf(rule).stateRecords;
    if (own) records.add(own);
  }
  return [...records];
}
