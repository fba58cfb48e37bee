// The metric families src/ops/metrics.ts declares, told apart from prom-client's defaults.
import { collectDefaultMetrics, Registry } from "prom-client";
import { createMetrics } from "../../src/ops/metrics.js";

export const METRIC_PREFIX = "pattern_sidecar_";

function familyNames(registry: Registry): string[] {
  return registry.getMetricsAsArray().map((metric) => (metric as unknown as { name: string }).name);
}

/** prom-client's process and Node.js metrics: useful, but not the sidecar's own. */
export function defaultMetricNames(): Set<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return new Set(familyNames(registry));
}

export function declaredMetricNames(): string[] {
  const defaults = defaultMetricNames();
  return familyNames(createMetrics().registry).filter((name) => !defaults.has(name));
}
