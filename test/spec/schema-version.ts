// Version strings of the unified test format and of servers: "<major>[.<minor>[.<patch>]]", anything
// after the numeric components (e.g. "-rc1") discarded, missing components read as zero.

/** The newest schema version this interpreter implements (it runs any 1.x file up to it). */
export const SUPPORTED_SCHEMA_VERSION = "1.21";

export type Version = [number, number, number];

export function parseVersion(text: string): Version {
  const numeric = text.split("-")[0] ?? "";
  const parts = numeric.split(".").map((part) => Number.parseInt(part, 10));
  if (parts.length === 0 || parts.length > 3 || parts.some((part) => !Number.isInteger(part) || part < 0)) {
    throw new Error(`invalid version string ${JSON.stringify(text)}`);
  }
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

export function compareVersions(left: Version, right: Version): number {
  for (let index = 0; index < 3; index++) {
    const difference = left[index]! - right[index]!;
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/**
 * A file is compatible when its schema version has our major version and is not newer than the
 * version we implement (format spec, "Test Runner Support"). Returns the reason it is not, or undefined.
 */
export function schemaVersionProblem(fileVersion: string): string | undefined {
  const supported = parseVersion(SUPPORTED_SCHEMA_VERSION);
  let version: Version;
  try {
    version = parseVersion(fileVersion);
  } catch {
    return `schemaVersion ${JSON.stringify(fileVersion)} is not a version string`;
  }
  if (version[0] !== supported[0] || compareVersions(version, supported) > 0) {
    return `schemaVersion ${fileVersion} is newer than the supported ${SUPPORTED_SCHEMA_VERSION}`;
  }
  return undefined;
}
