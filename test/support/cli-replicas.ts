// Sidecar replicas as real processes (the CLI, as deployed) against a test database, each
// SIGKILLed at the test file's end if still running.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useTestDatabase, type TestDatabase } from "./mongo.js";

export interface CliReplicas {
  fixture: TestDatabase;
  /** Starts `sidecar run` with the database, `leaseSeconds: 2`, `logLevel: warn` and `extraConfig` lines. */
  start: (extraConfig?: string) => Promise<ChildProcess>;
}

export function useCliReplicas(name: string): CliReplicas {
  const children: ChildProcess[] = [];
  const fixture = useTestDatabase(name, {
    tearDown: async () => {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    },
  });
  const start = async (extraConfig = ""): Promise<ChildProcess> => {
    const configFile = join(await mkdtemp(join(tmpdir(), `${name}-`)), "config.yaml");
    const config = `database: ${fixture.db.databaseName}\nleaseSeconds: 2\nlogLevel: warn\n${extraConfig}`;
    await writeFile(configFile, config);
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "src/main.ts", "run", "--config", configFile],
      { env: { ...process.env, MONGODB_URI: fixture.mongo.uri, SIDECAR_HTTP_PORT: "0" }, stdio: "ignore" },
    );
    children.push(child);
    return child;
  };
  return { fixture, start };
}
