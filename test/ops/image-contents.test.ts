// The image's contents, exercised without Docker: the runtime stage's files (package.json,
// production node_modules, dist/) in a temp dir, started as the image's ENTRYPOINT does (its
// node flags, its NODE_OPTIONS). The image leaves the embedded server out: it runs against MONGODB_URI.
import assert from "node:assert/strict";
import { once } from "node:events";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "../../src/cli/wait-until.js";
import { useTestDatabase } from "../support/mongo.js";
import { freePort } from "./free-port.js";
import { imageNode } from "./image-node.js";
import { promtoolCheckMetrics, skipWithout } from "./prometheus-tools.js";
import {
  containerEnv,
  prepareRuntimeInstall,
  removeRuntimeInstall,
  startEntrypoint,
} from "./runtime-install.js";
import { stopWithSigterm } from "./stop-process.js";

const packageJson = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

const fixture = useTestDatabase("image");

async function statusOf(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

void test("`npm start` starts node with the image's node flags, as its ENTRYPOINT does", () => {
  const start = packageJson.scripts.start ?? "";
  assert.ok(start.includes(["node", ...imageNode().flags, "dist/main.js"].join(" ")), start);
});

void describe("the image's runtime contents", () => {
  let app: string;
  /** What /metrics of `node dist/main.js run` answered, for the promtool check after it. */
  let scrape: string | undefined;
  before(() => {
    app = prepareRuntimeInstall();
  });
  after(() => removeRuntimeInstall(app));

  void test("hold every production dependency and no development dependency", () => {
    const installed = (name: string) => existsSync(join(app, "node_modules", name, "package.json"));
    assert.deepEqual(
      Object.keys(packageJson.dependencies).filter((name) => !installed(name)),
      [],
    );
    assert.deepEqual(Object.keys(packageJson.devDependencies).filter(installed), []);
  });

  void test("leave out the embedded server's package and what only it needs (mingo)", () => {
    assert.equal(existsSync(join(app, "node_modules/@pattern-sidecar/mongodb-embedded")), false);
    assert.equal(existsSync(join(app, "node_modules/mingo")), false);
  });

  void test("hold the compiled CLI and no test code", () => {
    assert.ok(existsSync(join(app, "dist/main.js")));
    assert.ok(existsSync(join(app, "dist/ops/http.js")));
    assert.ok(existsSync(join(app, "dist/healthcheck.js")), "the HEALTHCHECK script");
    assert.equal(existsSync(join(app, "dist/test")), false);
  });

  void test("put the CLI on PATH: a launcher that runs the image's node on dist/main.js", () => {
    const dockerfile = readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8");
    // distroless's PATH holds /usr/local/bin; with no shell there, the launcher is a node script.
    const copied = /^COPY .*--chmod=755 deploy\/mongo-pattern-sidecar (\S+)$/m.exec(dockerfile)?.[1];
    assert.equal(copied, "/usr/local/bin/mongo-pattern-sidecar");
    const launcher = readFileSync(new URL("../../deploy/mongo-pattern-sidecar", import.meta.url), "utf8");
    assert.equal(launcher.split("\n")[0], `#!${imageNode().binary}`);
    // Outside the app, as in /usr/local/bin: no package.json near it says "module".
    const bin = mkdtempSync(join(tmpdir(), "pattern-sidecar-bin-"));
    try {
      const here = join(bin, "mongo-pattern-sidecar");
      writeFileSync(here, launcher.replaceAll("/app/", `${app}/`));
      const run = spawnSync(process.execPath, [here, "--version"], { env: containerEnv(), encoding: "utf8" });
      assert.deepEqual([run.status, run.stdout], [0, `${packageJson.version}\n`]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  void test("run the CLI's check-config with the production dependencies only", async () => {
    const env = containerEnv({ MONGODB_URI: "mongodb://db.example.com/shop?replicaSet=rs0" });
    const child = startEntrypoint(app, ["check-config"], env);
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
    assert.match(stdout, /\[outlier\]/);
  });

  /** Exit status and stderr of `node dist/main.js run ...args` in the image's environment. */
  async function runInImage(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const env = containerEnv({ SIDECAR_HTTP_PORT: String(await freePort()) });
    const child = startEntrypoint(app, ["run", ...args], env);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    return { code, stderr };
  }

  void test("`run` without MONGODB_URI exits 2, saying to set it or pass --embedded", async () => {
    const { code, stderr } = await runInImage([]);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^mongo-pattern-sidecar: MONGODB_URI is not set and NODE_ENV is production: set MONGODB_URI .* or pass --embedded/,
    );
  });

  void test("`run --embedded` exits 2, saying the embedded server is not installed", async () => {
    const { code, stderr } = await runInImage(["--embedded"]);
    assert.equal(code, 2);
    assert.match(stderr, /embedded in-memory server .* is not installed.*set MONGODB_URI/);
  });

  void test("`run` serves /healthz and /metrics, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const uri = fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
    const env = containerEnv({ SIDECAR_HTTP_PORT: String(port), MONGODB_URI: uri });
    const child = startEntrypoint(app, ["run"], env);
    try {
      const status = await waitUntil(() => statusOf(`http://127.0.0.1:${port}/healthz`), {
        timeoutMs: 10_000,
        description: "/healthz from `node dist/main.js run`",
      });
      assert.equal(status, 200);
      scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      assert.match(scrape, /^pattern_sidecar_runner_state\{state="\w+"\} 1$/m);
    } finally {
      assert.equal(await stopWithSigterm(child), 0);
    }
  });

  void test("`run`'s /metrics passes promtool check metrics", { skip: skipWithout("promtool") }, () => {
    assert.ok(scrape !== undefined, "the test before this one scraped /metrics");
    assert.deepEqual(promtoolCheckMetrics(scrape), { status: 0, problems: "" });
  });
});
