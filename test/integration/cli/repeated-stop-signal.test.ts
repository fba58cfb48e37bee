// A stop signal that arrives again while the sidecar stops: Ctrl-C at a terminal under
// `npm start` reaches it twice, from the terminal and forwarded by npm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { waitUntil } from "../../../src/cli/wait-until.js";

const STOP_SIGNAL = new URL("../../../src/cli/stop-signal.ts", import.meta.url).href;
const LOGGER = new URL("../../../src/ops/logger.ts", import.meta.url).href;

// A command that, once asked to stop, takes a second to wind down, as `run` closing its clients does.
const SLOW_STOPPER = `
import { waitForStopSignal } from ${JSON.stringify(STOP_SIGNAL)};
import { createLogger } from ${JSON.stringify(LOGGER)};
const keepAlive = setInterval(() => {}, 60_000);
const stop = waitForStopSignal(createLogger({ level: "silent" }));
process.stdout.write("waiting\\n");
await stop;
clearInterval(keepAlive);
process.stdout.write("stopping\\n");
await new Promise((resolve) => setTimeout(resolve, 1000));
process.stdout.write("stopped\\n");
`;

void test("a second SIGINT while stopping does not cut the stop short", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", SLOW_STOPPER]);
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const killTimer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    await waitUntil(() => stdout.includes("waiting"), {
      timeoutMs: 15_000,
      description: "the stop handlers",
    });
    child.kill("SIGINT");
    await waitUntil(() => stdout.includes("stopping"), {
      timeoutMs: 5_000,
      description: "the stop to begin",
    });
    child.kill("SIGINT");
    const [code, signal] = await exited;
    assert.deepEqual(
      { code, signal, stdout },
      { code: 0, signal: null, stdout: "waiting\nstopping\nstopped\n" },
    );
  } finally {
    clearTimeout(killTimer);
  }
});
