// "Executing a Test File": parse it as Extended JSON (YAML too), check schemaVersion and the
// file's runOnRequirements, then run each test in isolation.
import { readFileSync } from "node:fs";
import { EJSON } from "bson";
import YAML from "yaml";
import { asError } from "./outcomes.js";
import { unmetRequirements } from "./requirements.js";
import { runTest, type RunEnvironment, type TestOutcome } from "./run-test.js";
import { schemaVersionProblem } from "./schema-version.js";
import type { TestFile } from "./test-file-types.js";

export interface TestReport {
  file: string;
  description: string;
  outcome: TestOutcome;
}

export function loadTestFile(path: string): TestFile {
  const text = readFileSync(path, "utf8");
  // Canonical parsing keeps $numberLong, $numberDouble... as bson classes, so types reach the server.
  const plain: unknown = path.endsWith(".json") ? JSON.parse(text) : YAML.parse(text);
  return EJSON.deserialize(plain as Record<string, unknown>, { relaxed: false }) as TestFile;
}

export async function runTestFile(
  path: string,
  displayName: string,
  env: RunEnvironment,
  report: (entry: TestReport) => void,
): Promise<void> {
  let file: TestFile;
  try {
    file = loadTestFile(path);
  } catch (error) {
    report({
      file: displayName,
      description: "(file)",
      outcome: { status: "fail", message: `cannot load: ${asError(error).message}` },
    });
    return;
  }
  const skipReason = await fileSkipReason(file, env);
  for (const test of file.tests) {
    const outcome = skipReason
      ? { status: "skip" as const, reason: skipReason }
      : await runTest(file, test, env);
    report({ file: displayName, description: test.description, outcome });
  }
}

async function fileSkipReason(file: TestFile, env: RunEnvironment): Promise<string | undefined> {
  const schemaProblem = schemaVersionProblem(file.schemaVersion);
  if (schemaProblem) return schemaProblem;
  const unmet = await unmetRequirements(file.runOnRequirements, env.facts);
  return unmet ? `runOnRequirements: ${unmet}` : undefined;
}
