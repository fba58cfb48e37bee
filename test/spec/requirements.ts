// runOnRequirements: a list is met when any one requirement is met; a requirement is met when every
// condition in it holds against what the server under test presents itself as.
import { findDifference } from "./matcher.js";
import { compareVersions, parseVersion, type Version } from "./schema-version.js";

export type Topology = "single" | "replicaset" | "sharded" | "load-balanced";

export interface RunOnRequirement {
  minServerVersion?: string;
  maxServerVersion?: string;
  topologies?: string[];
  serverless?: "require" | "forbid" | "allow";
  auth?: boolean;
  authMechanism?: string;
  csfle?: boolean | Record<string, unknown>;
  serverParameters?: Record<string, unknown>;
}

export interface ServerFacts {
  version: Version;
  topology: Topology;
  auth: boolean;
  serverless: boolean;
  /** The driver here is built without libmongocrypt, so this is false in practice. */
  csfle: boolean;
  authMechanisms: string[];
  /** The server's value of a parameter, or undefined when it has none (getParameter failed). */
  serverParameter(name: string): Promise<unknown>;
}

/** Why none of the requirements is met, or undefined when at least one is (or there are none). */
export async function unmetRequirements(
  requirements: RunOnRequirement[] | undefined,
  facts: ServerFacts,
): Promise<string | undefined> {
  if (!requirements || requirements.length === 0) return undefined;
  const reasons: string[] = [];
  for (const requirement of requirements) {
    const reason = await unmetRequirement(requirement, facts);
    if (reason === undefined) return undefined;
    reasons.push(reason);
  }
  return reasons.join("; ");
}

async function unmetRequirement(
  requirement: RunOnRequirement,
  facts: ServerFacts,
): Promise<string | undefined> {
  const known = new Set([
    "minServerVersion",
    "maxServerVersion",
    "topologies",
    "serverless",
    "auth",
    "authMechanism",
    "csfle",
    "serverParameters",
  ]);
  const unknown = Object.keys(requirement).find((key) => !known.has(key));
  if (unknown) return `unknown requirement ${unknown}`;
  return (
    versionProblem(requirement, facts.version) ??
    topologyProblem(requirement, facts.topology) ??
    deploymentProblem(requirement, facts) ??
    (await parameterProblem(requirement.serverParameters, facts))
  );
}

function versionProblem(requirement: RunOnRequirement, version: Version): string | undefined {
  const server = version.join(".");
  if (
    requirement.minServerVersion &&
    compareVersions(version, parseVersion(requirement.minServerVersion)) < 0
  ) {
    return `minServerVersion ${requirement.minServerVersion} > server ${server}`;
  }
  if (
    requirement.maxServerVersion &&
    compareVersions(version, parseVersion(requirement.maxServerVersion)) > 0
  ) {
    return `maxServerVersion ${requirement.maxServerVersion} < server ${server}`;
  }
  return undefined;
}

function topologyProblem(requirement: RunOnRequirement, topology: Topology): string | undefined {
  if (!requirement.topologies) return undefined;
  // "sharded" accepts any sharded cluster, so a sharded server also meets "sharded-replicaset".
  const accepted = requirement.topologies.map((name) => (name === "sharded-replicaset" ? "sharded" : name));
  if (accepted.includes(topology)) return undefined;
  return `topologies ${requirement.topologies.join(",")} exclude ${topology}`;
}

function deploymentProblem(requirement: RunOnRequirement, facts: ServerFacts): string | undefined {
  if (requirement.serverless === "require" && !facts.serverless) return "serverless required";
  if (requirement.serverless === "forbid" && facts.serverless) return "serverless forbidden";
  if (requirement.auth === true && !facts.auth) return "auth required";
  if (requirement.auth === false && facts.auth) return "auth forbidden";
  if (requirement.authMechanism) {
    const wanted = requirement.authMechanism.toLowerCase();
    if (!facts.authMechanisms.some((mechanism) => mechanism.toLowerCase() === wanted)) {
      return `authMechanism ${requirement.authMechanism} unavailable`;
    }
  }
  const wantsCsfle = requirement.csfle !== undefined && requirement.csfle !== false;
  if (wantsCsfle && !facts.csfle) return "csfle required";
  if (requirement.csfle === false && facts.csfle) return "csfle forbidden";
  return undefined;
}

async function parameterProblem(
  parameters: Record<string, unknown> | undefined,
  facts: ServerFacts,
): Promise<string | undefined> {
  for (const [name, expected] of Object.entries(parameters ?? {})) {
    const actual = await facts.serverParameter(name);
    // Flexible numeric comparison applies; an unsupported parameter never matches.
    if (actual === undefined || findDifference(expected, actual, { root: false }) !== undefined) {
      return `serverParameters.${name} is not ${JSON.stringify(expected)}`;
    }
  }
  return undefined;
}
