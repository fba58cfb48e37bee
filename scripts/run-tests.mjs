// Runs every *.test.ts under test/ and packages/*/test/ (or the files and folders given) with
// Node's own test runner, in one run so that there is one summary. Node 20 cannot glob, and
// its runner does not look for .ts files by itself. --conditions=source makes the workspace
// packages resolve to their TypeScript sources (their exports' "source" condition).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";

function collectTestFiles(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      if (statSync(child).isDirectory()) return collectTestFiles(child);
      return name.endsWith(".test.ts") ? [child] : [];
    });
}

function defaultRoots() {
  const packages = readdirSync("packages").map((name) => join("packages", name, "test"));
  return ["test", ...packages.filter((path) => existsSync(path))];
}

const given = process.argv.slice(2);
const roots = given.length > 0 ? given : defaultRoots();
const files = roots.flatMap(collectTestFiles);
if (files.length === 0) {
  console.error(`no *.test.ts files found under ${roots.join(", ")}`);
  process.exit(1);
}
// Files run in processes of their own, each with its own embedded server: two at a time at
// least. Node's default (one fewer than the cores) ran them one by one on two cores, most of
// the time waiting on timers, leases and other processes. Against a real replica set, one at
// a time: a fail point aimed at the sidecar's appName would meet another file's sidecar.
const concurrency = process.env.MONGODB_URI ? 1 : Math.max(2, availableParallelism() - 1);
const nodeArgs = [
  "--conditions=source",
  "--import",
  "tsx",
  "--test",
  `--test-concurrency=${concurrency}`,
  ...files,
];
const result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit" });
process.exit(result.status ?? 1);
