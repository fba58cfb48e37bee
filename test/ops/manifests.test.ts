// The Kubernetes manifests are valid objects and agree with the code: probe paths, the
// metrics port, the mounted configuration, the Secret they read, what the PodMonitor selects.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { IPodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { ISecret } from "kubernetes-models/v1/Secret";
import { parse as parseYaml } from "yaml";
import { parseCliArgs } from "../../src/cli/args.js";
import { STOP_DEADLINE_MS } from "../../src/cli/stop-signal.js";
import { loadConfig } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { ENDPOINT_PATHS } from "../../src/ops/http.js";
import { imageNode } from "./image-node.js";
import {
  KUSTOMIZATION_FILE,
  loadManifests,
  MANIFEST_DIR,
  manifestsOfKind,
  validateAgainstSchema,
} from "./manifests.js";

const manifests = loadManifests();
const deployments = manifestsOfKind<IDeployment>(manifests, "Deployment");
const [configMap] = manifestsOfKind<IConfigMap>(manifests, "ConfigMap");
const [secret] = manifestsOfKind<ISecret>(manifests, "Secret");
const [podMonitor] = manifestsOfKind<IPodMonitor>(manifests, "PodMonitor");
const deploymentDocs = readFileSync(new URL("../../docs/deployment.md", import.meta.url), "utf8");
/** The Secret the Deployments read, as an example beside the kustomization, not in it. */
const SECRET_EXAMPLE_FILE = "secret.example.yaml";
/** The standalone alternative: listed in the kustomization instead of the in-app Deployment. */
const STANDALONE_FILES = [...new Set(manifests.map((manifest) => manifest.file))]
  .filter((file) => file.startsWith("standalone-"))
  .sort();
const standalone = deployments.find((deployment) => deployment.metadata?.name === "pattern-sidecar");

const DEFAULT_HTTP_PORT = configSchema.parse({}).http.port;
/** src/cli/stop-signal.ts gives in-flight work 10 s after SIGTERM; the pod must allow more. */
const SIDECAR_STOP_DEADLINE_SECONDS = STOP_DEADLINE_MS / 1000;

function sidecarContainer(deployment: IDeployment): IContainer {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  const found = containers.find((container) => container.image?.startsWith("mongo-pattern-sidecar:"));
  assert.ok(found, `${deployment.metadata?.name}: no container runs the mongo-pattern-sidecar image`);
  return found;
}

function namedPort(container: IContainer, name: string | number | undefined): number | undefined {
  if (typeof name === "number") return name;
  return container.ports?.find((port) => port.name === name)?.containerPort;
}

void test("every manifest under k8s/ validates against its Kubernetes or CRD schema", () => {
  assert.ok(manifests.length >= 5);
  for (const manifest of manifests) validateAgainstSchema(manifest);
});

const kustomization = parseYaml(readFileSync(join(MANIFEST_DIR, KUSTOMIZATION_FILE), "utf8")) as {
  kind: string;
  resources: string[];
};

void test("the kustomization lists only manifests that exist, and every manifest but the standalone alternative and the example Secret", () => {
  assert.equal(kustomization.kind, "Kustomization");
  for (const file of kustomization.resources) assert.ok(existsSync(join(MANIFEST_DIR, file)), file);
  const unlisted = [...new Set(manifests.map((manifest) => manifest.file))].filter(
    (file) => !kustomization.resources.includes(file),
  );
  assert.deepEqual(unlisted.sort(), [SECRET_EXAMPLE_FILE, ...STANDALONE_FILES]);
});

void test("kubectl apply -k applies no Secret, so it never replaces the real one with the example", () => {
  const applied = manifests.filter((manifest) => kustomization.resources.includes(manifest.file));
  assert.deepEqual(
    applied.filter((manifest) => manifest.object.kind === "Secret").map((manifest) => manifest.file),
    [],
  );
  assert.equal(manifests.find((manifest) => manifest.object.kind === "Secret")?.file, SECRET_EXAMPLE_FILE);
});

void test("the ConfigMap's config.yaml loads with the sidecar's own configuration loader", () => {
  const dir = mkdtempSync(join(tmpdir(), "pattern-sidecar-configmap-"));
  try {
    const file = join(dir, "config.yaml");
    writeFileSync(file, configMap?.data?.["config.yaml"] ?? "");
    const config = loadConfig({ file, env: {} });
    assert.equal(config.http.port, DEFAULT_HTTP_PORT);
    assert.deepEqual(
      config.rules.map((rule) => rule.pattern),
      ["outlier", "bucket", "subset"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const deployment of deployments) {
  const name = deployment.metadata?.name ?? "?";
  const podSpec = deployment.spec?.template.spec;
  const container = sidecarContainer(deployment);

  void describe(`the ${name} Deployment`, () => {
    void test("probes /healthz for liveness and /readyz for readiness on the metrics port", () => {
      assert.equal(container.livenessProbe?.httpGet?.path, ENDPOINT_PATHS.liveness);
      assert.equal(container.readinessProbe?.httpGet?.path, ENDPOINT_PATHS.readiness);
      assert.equal(namedPort(container, container.livenessProbe?.httpGet?.port), DEFAULT_HTTP_PORT);
      assert.equal(namedPort(container, container.readinessProbe?.httpGet?.port), DEFAULT_HTTP_PORT);
    });

    void test("exposes the default http.port and annotates it for scraping", () => {
      assert.equal(namedPort(container, "sidecar-metrics"), DEFAULT_HTTP_PORT);
      const annotations = deployment.spec?.template.metadata?.annotations ?? {};
      assert.equal(annotations["prometheus.io/port"], String(DEFAULT_HTTP_PORT));
      assert.equal(annotations["prometheus.io/path"], ENDPOINT_PATHS.metrics);
    });

    void test("runs `run` on the ConfigMap's file, named by SIDECAR_CONFIG so that `kubectl exec` commands find it", () => {
      const args = parseCliArgs(container.args ?? []);
      assert.equal(args.command, "run");
      assert.equal(args.configFile, undefined, "not --config, which a command run in the container lacks");
      const configFile = container.env?.find((variable) => variable.name === "SIDECAR_CONFIG")?.value;
      const mount = container.volumeMounts?.find((m) => configFile?.startsWith(`${m.mountPath}/`));
      assert.ok(mount, `${configFile} is under no volume mount`);
      const volume = podSpec?.volumes?.find((v) => v.name === mount.name);
      assert.equal(volume?.configMap?.name, configMap?.metadata?.name);
      const key = configFile!.slice(mount.mountPath.length + 1);
      assert.ok(configMap?.data?.[key], `ConfigMap has no key ${key}`);
    });

    void test("reads MONGODB_URI from a required key of the Secret", () => {
      const ref = container.env?.find((variable) => variable.name === "MONGODB_URI")?.valueFrom?.secretKeyRef;
      assert.equal(ref?.name, secret?.metadata?.name);
      assert.ok(ref?.key !== undefined && secret?.stringData?.[ref.key] !== undefined);
      assert.notEqual(ref.optional, true);
    });

    void test("starts node with the image's NODE_OPTIONS (the bounded heap the sweep's memory was measured with)", () => {
      const image = imageNode().options;
      // An env entry replaces the image's value rather than adding to it.
      const own = container.env?.find((variable) => variable.name === "NODE_OPTIONS")?.value;
      assert.equal(own ?? image, image);
    });

    void test("keeps the image's ENTRYPOINT and its node flags (sets args, not command)", () => {
      assert.ok(imageNode().flags.length > 0, "the Dockerfile's ENTRYPOINT passes node flags");
      assert.equal(container.command, undefined);
    });

    void test("runs as non-root on a read-only root filesystem with no capabilities", () => {
      const security = container.securityContext;
      assert.equal(security?.runAsNonRoot, true);
      assert.ok((security?.runAsUser ?? 0) > 0);
      assert.equal(security?.readOnlyRootFilesystem, true);
      assert.equal(security?.allowPrivilegeEscalation, false);
      assert.deepEqual(security?.capabilities?.drop, ["ALL"]);
      assert.equal(security?.seccompProfile?.type, "RuntimeDefault");
    });

    void test("sets resource requests and a memory limit", () => {
      assert.ok(container.resources?.requests?.cpu && container.resources.requests.memory);
      assert.ok(container.resources?.limits?.memory);
    });

    void test("mounts no service-account token: the sidecar never calls the Kubernetes API", () => {
      assert.equal(podSpec?.automountServiceAccountToken, false);
      const tokenMounts = (podSpec?.containers ?? []).flatMap((c) =>
        (c.volumeMounts ?? []).filter((m) => m.mountPath.startsWith("/var/run/secrets/kubernetes.io")),
      );
      assert.deepEqual(tokenMounts, []);
    });

    void test("has the requests and limits docs/deployment.md states", () => {
      const stated = /requests (\S+) CPU \/ (\d+) Mi and is limited to (\S+) \/ (\d+) Mi/.exec(
        deploymentDocs,
      );
      assert.ok(stated, "docs/deployment.md states the sidecar container's requests and limits");
      const { requests, limits } = container.resources ?? {};
      assert.deepEqual(
        [requests?.cpu, requests?.memory, limits?.cpu, limits?.memory],
        [stated[1], `${stated[2]}Mi`, stated[3], `${stated[4]}Mi`],
      );
    });

    void test("leaves the sidecar more time to stop than its own stop deadline", () => {
      assert.ok((podSpec?.terminationGracePeriodSeconds ?? 30) > SIDECAR_STOP_DEADLINE_SECONDS);
    });

    void test("is selected by the PodMonitor on the sidecar's named port", () => {
      const labels = deployment.spec?.template.metadata?.labels ?? {};
      for (const [key, value] of Object.entries(podMonitor?.spec.selector.matchLabels ?? {})) {
        assert.equal(labels[key], value, `pod label ${key}`);
      }
      const endpoint = podMonitor?.spec.podMetricsEndpoints?.[0];
      assert.equal(namedPort(container, endpoint?.port), DEFAULT_HTTP_PORT);
      assert.equal(endpoint?.path, ENDPOINT_PATHS.metrics);
    });
  });
}

type LabelSelector = NonNullable<IPodDisruptionBudget["spec"]>["selector"];

/** Whether a selector's matchLabels (the only form these manifests use) select pods of these labels. */
function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  assert.equal(selector?.matchExpressions, undefined);
  const wanted = Object.entries(selector?.matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels[key] === value);
}

function podLabels(deployment: IDeployment | undefined): Record<string, string> {
  return deployment?.spec?.template.metadata?.labels ?? {};
}

void test("the standalone Deployment runs three replicas", () => {
  assert.equal(standalone?.spec?.replicas, 3);
});

void test("a PodDisruptionBudget lets a drain evict one standalone sidecar at a time, never all", () => {
  const budgets = manifestsOfKind<IPodDisruptionBudget>(manifests, "PodDisruptionBudget");
  const budget = budgets.find((b) => selects(b.spec?.selector, podLabels(standalone)));
  assert.ok(budget, "no PodDisruptionBudget selects the standalone Deployment's pods");
  const replicas = standalone?.spec?.replicas ?? 1;
  const { maxUnavailable, minAvailable } = budget.spec ?? {};
  const mayEvict = maxUnavailable !== undefined ? Number(maxUnavailable) : replicas - Number(minAvailable);
  assert.ok(mayEvict >= 1, "a drain can evict a sidecar");
  assert.ok(mayEvict < replicas, "one sidecar stays to take the lease");
  const inApp = deployments.filter((d) => d !== standalone);
  assert.ok(
    inApp.every((d) => !selects(budget.spec?.selector, podLabels(d))),
    "it leaves the application's pods alone",
  );
});

/** The ports of a connection string's hosts, 27017 where a host names none. */
function mongodbPorts(uri: string): number[] {
  const hosts = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(uri)?.[1];
  assert.ok(hosts, `no hosts in ${uri}`);
  return [...new Set(hosts.split(",").map((host) => Number(/:(\d+)$/.exec(host)?.[1] ?? 27017)))];
}

void describe("the standalone pods' NetworkPolicy", () => {
  const policies = manifestsOfKind<INetworkPolicy>(manifests, "NetworkPolicy");
  const policy = policies.find((p) => selects(p.spec?.podSelector, podLabels(standalone)));
  const container = standalone && sidecarContainer(standalone);
  /** A rule's ports as "protocol/number", named ports resolved on the sidecar's container. */
  const portsOf = (rule: { ports?: { port?: string | number; protocol?: string }[] }) =>
    (rule.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${container && namedPort(container, p.port)}`);

  void test("selects the standalone pods, restricts both directions, and leaves the application's pods alone", () => {
    assert.ok(policy, "no NetworkPolicy selects the standalone Deployment's pods");
    assert.deepEqual([...(policy.spec?.policyTypes ?? [])].sort(), ["Egress", "Ingress"]);
    const inApp = deployments.filter((d) => d !== standalone);
    assert.ok(inApp.every((d) => !selects(policy.spec?.podSelector, podLabels(d))));
  });

  void test("lets in only the scraper's pods, on the metrics port alone", () => {
    const rules = policy?.spec?.ingress ?? [];
    assert.ok(rules.length > 0);
    for (const rule of rules) {
      assert.deepEqual(portsOf(rule), [`TCP/${DEFAULT_HTTP_PORT}`]);
      assert.ok((rule.from ?? []).length > 0, "an ingress rule without `from` admits every pod");
      for (const peer of rule.from ?? [])
        assert.ok(
          peer.podSelector?.matchLabels && peer.namespaceSelector?.matchLabels,
          "a namespace and pod selector",
        );
    }
  });

  void test("lets out only MongoDB on the connection string's port and DNS over UDP and TCP", () => {
    const uri = secret?.stringData?.MONGODB_URI ?? "";
    const rules = policy?.spec?.egress ?? [];
    for (const rule of rules)
      assert.ok((rule.to ?? []).length > 0, "an egress rule without `to` reaches anywhere");
    assert.deepEqual(
      rules.flatMap(portsOf).sort(),
      [...mongodbPorts(uri).map((port) => `TCP/${port}`), "TCP/53", "UDP/53"].sort(),
    );
  });
});
