// Runs every *.test.ts under test/ (or the files and folders given) with Node's own test
// runner. Node 20 cannot glob, and its runner does not look for .ts files by itself.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
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

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ["test"]).flatMap(collectTestFiles);
if (files.length === 0) {
  console.error(`no *.test.ts files found under ${roots.join(", ") || "test"}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
