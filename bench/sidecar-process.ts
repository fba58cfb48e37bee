// The sidecar as it is deployed: the CLI's `run` in a process of its own (soak/replicas.ts),
// compiled (`dist/main.js`, built once per bench run) and with the production image's node
// flags and NODE_OPTIONS. Live latency is measured against it, so that the bench's own writer
// and observer (their CPU, heap and collections) are not the sidecar's, as the applications'
// are not beside a real one.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../src/cli/wait-until.js";
import { freePort, Replica } from "../soak/replicas.js";
import { imageNode } from "../test/ops/image-node.js";
import { profileFlags } from "./profile-flags.js";

export interface SidecarProcess {
  /** Its process id, for its CPU time. */
  pid: number | undefined;
  /** Whether its process still runs (a bench may drive it out of memory). */
  running(): boolean;
  /** How many full (mark-compact) collections its V8 has run, from its /metrics. */
  fullCollections(): Promise<number>;
  /** Its /metrics, as Prometheus scrapes it. */
  metrics(): Promise<string>;
  /** Waits until its HTTP endpoints answer: it has booted (loaded its modules, read its config). */
  waitForEndpoints(timeoutMs: number): Promise<void>;
  /** Waits until its /readyz says it streams and has caught up. */
  waitForCaughtUp(timeoutMs: number): Promise<void>;
  /** Stops it as Kubernetes does (SIGTERM): it stores its position and releases the lease. */
  stop(): Promise<void>;
}

/** The sum of a metric's samples over all its label sets in a /metrics text (0 without any). */
export function metricSum(text: string, name: string): number {
  const sample = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm");
  return [...text.matchAll(sample)].reduce((total, match) => total + Number(match[1]), 0);
}

let built: Promise<unknown> | undefined;

/**
 * `npm run build`, once per bench process: the image runs the compiled sidecar. Run through
 * tsx instead, each process also kept tsx's loader thread and source maps, and four replicas'
 * CPU per correction was 1.74x one's where compiled it was 1.53x (`replicas`, one run each).
 */
export function buildOnce(): Promise<unknown> {
  built ??= promisify(execFile)("npm", ["run", "build", "--silent"]);
  return built;
}

/**
 * BENCH_SIDECAR_FLAGS="<flags>" adds node or V8 flags to every sidecar a bench starts, beside
 * the image's: a flag's effect, measured before the image takes it.
 */
const addedFlags = () => (process.env.BENCH_SIDECAR_FLAGS ?? "").split(" ").filter(Boolean);

/** `nodeFlags` replaces the image's V8 flags (its NODE_OPTIONS stay), for a comparison. */
export async function startSidecarProcess(
  uri: string,
  config: Record<string, unknown>,
  { nodeFlags }: { nodeFlags?: string[] } = {},
): Promise<SidecarProcess> {
  await buildOnce();
  const dir = await mkdtemp(join(tmpdir(), "bench-sidecar-"));
  const image = imageNode();
  const replica = new Replica(
    {
      name: "sidecar",
      uri,
      config,
      dir,
      nodeFlags: [...(nodeFlags ?? image.flags), ...addedFlags(), ...profileFlags()],
      env: { NODE_OPTIONS: image.options },
      entry: "dist",
    },
    await freePort(),
  );
  await replica.start();
  // A bench that dies must not leave its sidecar running.
  const killOnExit = () => replica.signal("SIGKILL");
  process.once("exit", killOnExit);
  const metrics = async () => (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  const exitedMessage = () => `the sidecar's process exited (its log: ${replica.logFile})`;
  return {
    pid: replica.pid,
    running: () => replica.running,
    metrics,
    async fullCollections() {
      const text = await metrics();
      if (!text.includes("# TYPE nodejs_gc_duration_seconds histogram"))
        throw new Error("the sidecar's /metrics reports no garbage collections");
      // prom-client writes a kind's line from its first collection on: none yet is none.
      const count = /^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(text)?.[1];
      return Number(count ?? 0);
    },
    async waitForEndpoints(timeoutMs) {
      await waitUntil(
        async () => {
          if (!replica.running) throw new Error(exitedMessage());
          return (await replica.readiness()) !== undefined;
        },
        { timeoutMs, intervalMs: 20, description: `the sidecar's endpoints (log: ${replica.logFile})` },
      );
    },
    async waitForCaughtUp(timeoutMs) {
      await waitUntil(
        async () => {
          if (!replica.running) throw new Error(exitedMessage());
          const readiness = await replica.readiness();
          return readiness?.state === "streaming" && readiness.caughtUp === true;
        },
        {
          timeoutMs,
          intervalMs: 20,
          description: `the sidecar's process to stream and catch up (log: ${replica.logFile})`,
        },
      );
    },
    async stop() {
      process.off("exit", killOnExit);
      await replica.stop();
      // KEEP_SIDECAR_LOGS=1 leaves its log (and config) in /tmp/bench-sidecar-*, for a look after the run.
      if (!process.env.KEEP_SIDECAR_LOGS) await rm(dir, { recursive: true, force: true });
    },
  };
}
