// k8s/examples/keda-scaledobject.yaml, checked by hand since no KEDA model package is
// installed: the fields KEDA 2.x's ScaledObject CRD knows, string metadata (the CRD's
// map[string]string), a target that is the standalone Deployment, a Prometheus query of
// metrics the sidecar declares that parses as PromQL, and the HPA behaviour it passes on
// validated against Kubernetes' own schema.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import { parse as parseYaml, stringify } from "yaml";
import { declaredMetricNames } from "./declared-metrics.js";
import { KUSTOMIZATION_FILE, loadManifests, MANIFEST_DIR, manifestsOfKind } from "./manifests.js";
import { promtool, skipWithout } from "./prometheus-tools.js";

interface Trigger {
  type: string;
  metricType?: string;
  metadata: Record<string, unknown>;
}

interface ScaledObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown> & {
    scaleTargetRef: { apiVersion?: string; kind?: string; name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    advanced?: { horizontalPodAutoscalerConfig?: { behavior?: unknown } };
    triggers: Trigger[];
  };
}

const FILE = "examples/keda-scaledobject.yaml";
const scaledObject = parseYaml(readFileSync(join(MANIFEST_DIR, FILE), "utf8")) as ScaledObject;
const standalone = manifestsOfKind<IDeployment>(loadManifests(), "Deployment").find(
  (deployment) => deployment.metadata?.name === "pattern-sidecar",
);
/** The partitions' default (issue 36): a replica beyond them would own none. */
const DEFAULT_PARTITIONS = 16;

// From KEDA 2.x's ScaledObject CRD (keda.sh/v1alpha1) and its Prometheus scaler's parameters.
const SPEC_FIELDS = [
  "scaleTargetRef",
  "pollingInterval",
  "cooldownPeriod",
  "initialCooldownPeriod",
  "idleReplicaCount",
  "minReplicaCount",
  "maxReplicaCount",
  "fallback",
  "advanced",
  "triggers",
];
const TRIGGER_FIELDS = ["type", "name", "metadata", "authenticationRef", "metricType", "useCachedMetrics"];
const METRIC_TYPES = ["AverageValue", "Value", "Utilization"];
const PROMETHEUS_METADATA = [
  "serverAddress",
  "query",
  "queryParameters",
  "threshold",
  "activationThreshold",
  "namespace",
  "customHeaders",
  "ignoreNullValues",
  "unsafeSsl",
];

function unknownKeys(object: object, known: readonly string[]): string[] {
  return Object.keys(object).filter((key) => !known.includes(key));
}

void test("the KEDA example is a ScaledObject of known fields, outside the kustomization", () => {
  assert.deepEqual([scaledObject.apiVersion, scaledObject.kind], ["keda.sh/v1alpha1", "ScaledObject"]);
  assert.deepEqual(unknownKeys(scaledObject.spec, SPEC_FIELDS), []);
  const kustomization = readFileSync(join(MANIFEST_DIR, KUSTOMIZATION_FILE), "utf8");
  assert.doesNotMatch(kustomization, /examples\//);
});

void test("it scales the standalone Deployment, from its replicas up to at most the partitions", () => {
  const { scaleTargetRef, minReplicaCount, maxReplicaCount } = scaledObject.spec;
  assert.deepEqual(scaleTargetRef, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: standalone?.metadata?.name,
  });
  assert.equal(minReplicaCount, standalone?.spec?.replicas);
  assert.ok(maxReplicaCount !== undefined && maxReplicaCount > minReplicaCount!);
  assert.ok(maxReplicaCount <= DEFAULT_PARTITIONS);
});

void test("its triggers are Prometheus queries with string metadata of the scaler's parameters", () => {
  assert.ok(scaledObject.spec.triggers.length > 0);
  for (const trigger of scaledObject.spec.triggers) {
    assert.deepEqual(unknownKeys(trigger, TRIGGER_FIELDS), []);
    assert.equal(trigger.type, "prometheus");
    assert.ok(METRIC_TYPES.includes(trigger.metricType ?? "AverageValue"));
    assert.deepEqual(unknownKeys(trigger.metadata, PROMETHEUS_METADATA), []);
    for (const [key, value] of Object.entries(trigger.metadata)) assert.equal(typeof value, "string", key);
    assert.ok(new URL(String(trigger.metadata.serverAddress)).protocol.startsWith("http"));
    for (const key of ["threshold", "activationThreshold"])
      assert.ok(Number.isFinite(Number(trigger.metadata[key])), `${key} is a number`);
  }
});

void test("its queries read only metrics the sidecar declares", () => {
  const declared = declaredMetricNames();
  for (const { metadata } of scaledObject.spec.triggers) {
    const names = String(metadata.query).match(/\bpattern_sidecar_[a-z0-9_]+/g) ?? [];
    assert.ok(names.length > 0);
    assert.deepEqual(
      names.filter((name) => !declared.includes(name)),
      [],
    );
  }
});

void test("its queries parse as PromQL (promtool check rules)", { skip: skipWithout("promtool") }, () => {
  const dir = mkdtempSync(join(tmpdir(), "pattern-sidecar-keda-"));
  try {
    const rules = scaledObject.spec.triggers.map(({ metadata }, index) => ({
      record: `keda:trigger_${index}`,
      expr: String(metadata.query),
    }));
    const file = join(dir, "rules.yml");
    writeFileSync(file, stringify({ groups: [{ name: "keda", rules }] }));
    const checked = promtool(["check", "rules", file]);
    assert.equal(checked.status, 0, checked.output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test("the HPA behaviour it passes on validates as an autoscaling/v2 HorizontalPodAutoscaler's", () => {
  const behavior = scaledObject.spec.advanced?.horizontalPodAutoscalerConfig?.behavior;
  assert.ok(behavior, "a behaviour that scales in slowly");
  const { scaleTargetRef, maxReplicaCount } = scaledObject.spec;
  const hpa = new HorizontalPodAutoscaler({
    metadata: { name: scaledObject.metadata.name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: scaleTargetRef.name },
      maxReplicas: maxReplicaCount ?? 100,
      behavior: behavior as never,
    },
  });
  hpa.validate();
});
