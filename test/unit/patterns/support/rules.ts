// The seeds' rules, as the default configuration produces them.
import { configSchema } from "../../../../src/config/schema.js";
import type { BucketRule } from "../../../../src/patterns/bucket/rule.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import type { SubsetRule } from "../../../../src/patterns/subset/rule.js";

const rules = configSchema.parse({}).rules;

function ruleOf<P extends "outlier" | "bucket" | "subset">(pattern: P) {
  const rule = rules.find((candidate) => candidate.pattern === pattern);
  if (!rule) throw new Error(`no default ${pattern} rule`);
  return rule;
}

export const outlierRule = ruleOf("outlier") as OutlierRule;
export const bucketRule = ruleOf("bucket") as BucketRule;
export const subsetRule = ruleOf("subset") as SubsetRule;

export function users(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `user${String(from + i).padStart(2, "0")}`);
}
