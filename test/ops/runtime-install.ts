// Does what the Dockerfile's stages do, on a clean copy in a temp dir: compile src/ with the
// build tsconfig, then install the production dependencies only (of the workspace packages,
// bson-field-order's build alone), beside package.json and dist/. No Docker engine runs here,
// so this is how the image's contents are exercised.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageNode } from "./image-node.js";

const REPO = new URL("../../", import.meta.url).pathname;

function runStep(description: string, command: string, args: string[], cwd: string): void {
  const step = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 120_000 });
  if (step.status !== 0) {
    throw new Error(`${description} failed (exit ${step.status}):\n${step.stdout}\n${step.stderr}`);
  }
}

/** Returns the directory that plays the image's /app; the caller removes it. */
export function prepareRuntimeInstall(): string {
  const app = mkdtempSync(join(tmpdir(), "pattern-sidecar-image-"));
  // Stage "build": `npm run build`, into the copy rather than the shared dist/.
  const tsc = join(REPO, "node_modules/typescript/bin/tsc");
  runStep(
    "tsc -p tsconfig.build.json",
    process.execPath,
    [tsc, "-p", "tsconfig.build.json", "--outDir", join(app, "dist")],
    REPO,
  );
  // Stage "production-dependencies", then the runtime stage's COPY of package.json.
  for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(REPO, file), join(app, file));
  const npmArgs = [
    "ci",
    "--omit=dev",
    "--workspaces=false",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
  ];
  runStep("npm ci --omit=dev --workspaces=false", "npm", npmArgs, app);
  installFieldOrderBuild(app, tsc);
  return app;
}

/** As the Dockerfile does: npm's link to packages/ replaced by the package's build. */
function installFieldOrderBuild(app: string, tsc: string): void {
  const installed = join(app, "node_modules/@pattern-sidecar/bson-field-order");
  rmSync(installed, { recursive: true, force: true });
  mkdirSync(installed);
  const source = join(REPO, "packages/bson-field-order");
  copyFileSync(join(source, "package.json"), join(installed, "package.json"));
  const build = ["-p", "tsconfig.build.json", "--outDir", join(installed, "dist")];
  runStep("tsc -p packages/bson-field-order/tsconfig.build.json", process.execPath, [tsc, ...build], source);
}

export function removeRuntimeInstall(app: string): void {
  rmSync(app, { recursive: true, force: true });
}

/** The environment of a container: no MONGODB_URI or SIDECAR_* leaking in from the test run. */
export function containerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    NODE_OPTIONS: imageNode().options,
    HOME: tmpdir(),
  };
  return { ...env, ...extra };
}

/** Starts `args` (a command and its options) in `app` as the image's ENTRYPOINT does. */
export function startEntrypoint(app: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const argv = [...imageNode().flags, "dist/main.js", ...args];
  return spawn(process.execPath, argv, { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] });
}
