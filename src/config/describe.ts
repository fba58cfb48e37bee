// What `check-config` prints: the deployment (password masked) and one line per rule, as
// each rule's driver describes it.
import { driverOf } from "../patterns/registry.js";
import { redactUri } from "./mongodb-uri.js";
import type { Config } from "./schema.js";

export function describeRules(config: Config): string {
  const deployment =
    config.mongodbUri === undefined ? "embedded in-memory server" : redactUri(config.mongodbUri);
  const rules = config.rules.map((rule) => {
    const state = rule.enabled ? "" : " (disabled)";
    return `  ${rule.name} [${rule.pattern}]${state}\n    ${driverOf(rule).describe(rule)}`;
  });
  return [
    `deployment: ${deployment}`,
    `database: ${config.database}`,
    `rules (${rules.length}):`,
    ...rules,
  ].join("\n");
}
