// The embedded server is a development dependency, left out of the production image: `run`
// with a MONGODB_URI must not load any module of it (nor mingo, which only it uses).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { freePort } from "../../ops/free-port.js";
import { stopWithSigterm } from "../../ops/stop-process.js";
import { useTestDatabase } from "../../support/mongo.js";

const RECORDER = new URL("./record-loaded-modules.mjs", import.meta.url).href;

const fixture = useTestDatabase("no_embedded");

async function readyStatus(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  } catch {
    return undefined;
  }
}

/** Starts `run` from the sources, waits until it is ready, stops it; the URLs it loaded. */
async function modulesLoadedByRun(mongodbUri: string | undefined): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "loaded-modules-"));
  const file = join(dir, "urls.txt");
  const { MONGODB_URI: _ignored, ...env } = process.env;
  const port = await freePort();
  const args = ["--conditions=source", "--import", "tsx", "--import", RECORDER, "src/main.ts", "run"];
  const child = spawn(process.execPath, args, {
    env: {
      ...env,
      ...(mongodbUri === undefined ? {} : { MONGODB_URI: mongodbUri }),
      LOADED_MODULES_FILE: file,
      SIDECAR_HTTP_PORT: String(port),
      SIDECAR_LOG_LEVEL: "silent",
    },
    stdio: "ignore",
  });
  try {
    await waitUntil(async () => (await readyStatus(port)) === 200, {
      timeoutMs: 20_000,
      description: "/readyz from `run`",
    });
    assert.equal(await stopWithSigterm(child), 0);
    return (await readFile(file, "utf8")).split("\n").filter((url) => url !== "");
  } finally {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}

const isEmbeddedServerModule = (url: string) =>
  url.includes("/packages/mongodb-embedded/") || url.includes("/node_modules/mingo/");

void test("`run` against a MONGODB_URI never loads the embedded server or mingo", async () => {
  const uri = fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
  const loaded = await modulesLoadedByRun(uri);

  assert.ok(
    loaded.some((url) => url.endsWith("/src/cli/deployment.ts")),
    "the recorder saw the sidecar's modules",
  );
  assert.deepEqual(loaded.filter(isEmbeddedServerModule), []);
});

void test("`run` without MONGODB_URI loads the embedded server, which the recorder sees", async () => {
  const loaded = await modulesLoadedByRun(undefined);

  assert.ok(loaded.some((url) => url.endsWith("/packages/mongodb-embedded/src/index.ts")));
  assert.ok(loaded.some((url) => url.includes("/node_modules/mingo/")));
});
