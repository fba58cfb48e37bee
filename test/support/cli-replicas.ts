// Sidecar replicas as real processes (the CLI, as deployed) against a test database, each
// with an HTTP port of its own for /readyz, SIGKILLed at the test file's end if still running.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../ops/free-port.js";
import { useTestDatabase, type TestDatabase } from "./mongo.js";

/** What a replica's /readyz says of it (src/ops/http.ts). */
export interface Readiness {
  state?: string;
  caughtUp?: boolean;
  /** The partitions it owns (all of them while it leads). */
  partitions?: number[];
}

export interface CliReplicas {
  fixture: TestDatabase;
  /** Starts `sidecar run` with the database, `leaseSeconds: 2`, `logLevel: info` (its log beside its config) and `extraConfig` lines. */
  start: (extraConfig?: string) => Promise<ChildProcess>;
  /** A started replica's /readyz body; undefined while it does not answer (starting, paused, gone). */
  readiness: (child: ChildProcess) => Promise<Readiness | undefined>;
}

/** GET /readyz on `port`; undefined when nothing answers within 2 s. */
export async function readinessAt(port: number): Promise<Readiness | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return (await response.json()) as Readiness;
  } catch {
    return undefined; // not listening yet, restarting, or paused
  }
}

export interface CliReplicasHooks {
  /** Runs once the database is there, and may start replicas. */
  setUp?: (replicas: CliReplicas) => Promise<void>;
  /** Runs after the replicas were killed, before the database goes. */
  tearDown?: () => Promise<void>;
}

export function useCliReplicas(name: string, hooks: CliReplicasHooks = {}): CliReplicas {
  const ports = new Map<ChildProcess, number>();
  const fixture: TestDatabase = useTestDatabase(name, {
    setUp: () => hooks.setUp?.({ fixture, start, readiness }),
    tearDown: async () => {
      for (const child of ports.keys()) if (child.exitCode === null) child.kill("SIGKILL");
      await hooks.tearDown?.();
    },
  });
  const start = async (extraConfig = ""): Promise<ChildProcess> => {
    const dir = await mkdtemp(join(tmpdir(), `${name}-`));
    const configFile = join(dir, "config.yaml");
    const config = `database: ${fixture.db.databaseName}\nleaseSeconds: 2\nlogLevel: info\n${extraConfig}`;
    await writeFile(configFile, config);
    const port = await freePort();
    const log = await open(join(dir, "replica.log"), "w");
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "src/main.ts", "run", "--config", configFile],
      {
        env: { ...process.env, MONGODB_URI: fixture.mongo.uri, SIDECAR_HTTP_PORT: String(port) },
        // Its log beside its config, for when a test fails.
        stdio: ["ignore", log.fd, "inherit"],
      },
    );
    // The child writes through its own copy of the descriptor; ours is closed at once rather
    // than by the garbage collector, which Node warns of.
    await log.close();
    ports.set(child, port);
    return child;
  };
  const readiness = (child: ChildProcess) => readinessAt(ports.get(child)!);
  return { fixture, start, readiness };
}
