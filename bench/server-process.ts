// The embedded server in a process of its own, as mongod runs beside a real sidecar: its CPU,
// heap and garbage collections are then not the measured process's. Started through the
// package's command line, which prints the connection string once it listens.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const CLI = fileURLToPath(new URL("../packages/mongodb-embedded/src/cli.ts", import.meta.url));
const START_TIMEOUT_MS = 30_000;

export interface ServerProcess {
  uri: string;
  /** Its process id, for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

export async function startServerProcess(): Promise<ServerProcess> {
  // As 8.0, like the tests' server: a correction's writes then go in one bulkWrite.
  const args = ["--conditions=source", "--import", "tsx", CLI, "--port", "0", "--server-version", "8.0"];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
  });
  // A bench that dies must not leave its server running.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const uri = await firstLine(child);
  return {
    uri,
    pid: child.pid,
    async stop() {
      process.off("exit", killOnExit);
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The connection string the command line prints, or an error naming why the server did not start. */
async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`the embedded server printed no address in ${START_TIMEOUT_MS} ms`)),
    START_TIMEOUT_MS,
  );
  const { signal } = controller;
  const exited = once(child, "exit", { signal }).then(([code]) => {
    throw new Error(`the embedded server's process exited with code ${String(code)} before listening`);
  });
  const line = once(lines, "line", { signal }).then(([text]) => String(text));
  try {
    return await Promise.race([line, exited]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
    lines.close();
  }
}
