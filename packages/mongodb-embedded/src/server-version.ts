// Which MongoDB release the server presents itself as. 7.0 unless asked: the driver's
// specification tests run against it. 8.0 adds the `bulkWrite` command (writes to several
// collections in one command) and nothing else of that release: a driver sees wire version
// 25 and may send it, and a 7.0 server answers it CommandNotFound, as mongod 7.0 does. An 8.0
// server whose featureCompatibilityVersion was set back to 7.0 (setFeatureCompatibilityVersion,
// as during an upgrade) knows bulkWrite but refuses it with CommandNotSupported, as mongod's
// feature flag does.
export type ServerVersion = "7.0" | "8.0";

export const SERVER_VERSIONS: readonly ServerVersion[] = ["7.0", "8.0"];

export interface VersionFacts {
  release: ServerVersion;
  /** buildInfo's and serverStatus's `version`. */
  version: string;
  versionArray: readonly number[];
  /** hello's maxWireVersion: 21 is MongoDB 7.0, 25 is 8.0. */
  maxWireVersion: number;
}

const FACTS: Record<ServerVersion, VersionFacts> = {
  "7.0": { release: "7.0", version: "7.0.0", versionArray: [7, 0, 0, 0], maxWireVersion: 21 },
  "8.0": { release: "8.0", version: "8.0.0", versionArray: [8, 0, 0, 0], maxWireVersion: 25 },
};

export function versionFacts(release: ServerVersion): VersionFacts {
  return FACTS[release];
}

/** Commands a release added: older releases do not know them. */
const INTRODUCED_IN: ReadonlyMap<string, ServerVersion> = new Map([["bulkWrite", "8.0"]]);

export function knowsCommand(facts: VersionFacts, name: string): boolean {
  return isAtLeast(facts.release, INTRODUCED_IN.get(name));
}

/** Whether a command a release added may run at this featureCompatibilityVersion. */
export function enabledAt(featureCompatibilityVersion: ServerVersion, name: string): boolean {
  return isAtLeast(featureCompatibilityVersion, INTRODUCED_IN.get(name));
}

function isAtLeast(release: ServerVersion, since: ServerVersion | undefined): boolean {
  return since === undefined || FACTS[release].maxWireVersion >= FACTS[since].maxWireVersion;
}

/** The featureCompatibilityVersion values a release takes: its own, and 7.0 on 8.0. */
export function compatibleVersions(release: ServerVersion): ServerVersion[] {
  return SERVER_VERSIONS.filter((version) => isAtLeast(release, version));
}
