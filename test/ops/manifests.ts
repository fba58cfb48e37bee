// Reads k8s/ and validates each object against the Kubernetes OpenAPI schemas (the
// kubernetes-models packages ship them compiled; PodMonitor's and PrometheusRule's come from the
// prometheus-operator CRD). Unknown kinds are an error, not a silent pass.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { parseAllDocuments } from "yaml";

export const MANIFEST_DIR = new URL("../../k8s/", import.meta.url).pathname;

export interface Manifest {
  file: string;
  object: { apiVersion: string; kind: string; metadata: { name: string } } & Record<string, unknown>;
}

const MODELS: Record<string, (data: never) => { validate(): void }> = {
  "apps/v1 Deployment": (data) => new Deployment(data),
  "v1 ConfigMap": (data) => new ConfigMap(data),
  "v1 Secret": (data) => new Secret(data),
  "policy/v1 PodDisruptionBudget": (data) => new PodDisruptionBudget(data),
  "networking.k8s.io/v1 NetworkPolicy": (data) => new NetworkPolicy(data),
  "monitoring.coreos.com/v1 PodMonitor": (data) => new PodMonitor(data),
  "monitoring.coreos.com/v1 PrometheusRule": (data) => new PrometheusRule(data),
};

export const KUSTOMIZATION_FILE = "kustomization.yaml";

/** Every object under k8s/ that is applied to a cluster (the kustomization is not one). */
export function loadManifests(): Manifest[] {
  const files = readdirSync(MANIFEST_DIR).filter(
    (name) => /\.ya?ml$/.test(name) && name !== KUSTOMIZATION_FILE,
  );
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(MANIFEST_DIR, file), "utf8")).map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      return { file, object: document.toJS() as Manifest["object"] };
    }),
  );
}

/** Throws naming the file and object when the schema rejects it or its kind is unknown. */
export function validateAgainstSchema({ file, object }: Manifest): void {
  const model = MODELS[`${object.apiVersion} ${object.kind}`];
  const where = `${file}: ${object.kind}/${object.metadata?.name}`;
  if (model === undefined) throw new Error(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
  try {
    model(object as never).validate();
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
  }
}

export function manifestsOfKind<T>(manifests: Manifest[], kind: string): T[] {
  return manifests.filter((manifest) => manifest.object.kind === kind).map((m) => m.object as T);
}
