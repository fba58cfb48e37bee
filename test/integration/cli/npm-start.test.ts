// `npm start` as a process manager or a person at a terminal uses it: SIGTERM or SIGINT goes to
// npm, which forwards it to its child only; the sidecar must be that child, not a shell that
// dies and leaves it serving. The script builds first (seconds) and runs dist/main.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { freePort } from "../../ops/free-port.js";

async function alive(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

/** `npm start` in its own process group, so that the test can kill whatever it leaves behind. */
function npmStart(port: number): ChildProcess & { stderr: NodeJS.ReadableStream } {
  const { MONGODB_URI: _uri, NODE_ENV: _nodeEnv, ...env } = process.env;
  return spawn("npm", ["start", "--silent"], {
    env: {
      ...env,
      SIDECAR_HTTP_PORT: String(port),
      SIDECAR_LOG_LEVEL: "warn",
      npm_config_update_notifier: "false",
    },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
}

/** npm's exit code, or a failure if it has not exited within `ms`. */
async function exitCode(child: ChildProcess, ms: number): Promise<number | null> {
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const late = delay(ms).then(() => Promise.reject(new Error(`npm still running ${ms} ms after the signal`)));
  const [code] = await Promise.race([exited, late]);
  return code;
}

const STOPS = [
  { how: "SIGTERM to the npm process (a process manager)", signal: "SIGTERM", group: false },
  { how: "SIGINT to the npm process", signal: "SIGINT", group: false },
  { how: "Ctrl-C at a terminal (SIGINT to npm and the sidecar alike)", signal: "SIGINT", group: true },
] as const;

for (const { how, signal, group } of STOPS) {
  void test(`${how} stops the sidecar started by npm start, which closes its port`, async () => {
    const port = await freePort();
    const npm = npmStart(port);
    let stderr = "";
    npm.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await waitUntil(() => alive(port), { timeoutMs: 60_000, description: "the sidecar's /healthz" });
      if (group) process.kill(-npm.pid!, signal);
      else npm.kill(signal);
      assert.equal(await exitCode(npm, 15_000), 0, stderr);
      // npm exits after its child: the sidecar must be gone with it.
      assert.equal(await alive(port), false, "the sidecar still serves after npm exited");
    } finally {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {
        // Nothing is left in the group.
      }
    }
  });
}
