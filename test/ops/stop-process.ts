import type { ChildProcess } from "node:child_process";
import { once } from "node:events";

/** SIGTERM, as Kubernetes sends it; SIGKILL if the process is still there after `graceMs`. */
export async function stopWithSigterm(child: ChildProcess, graceMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill("SIGTERM");
  const killTimer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  const [code] = await exited;
  clearTimeout(killTimer);
  return code;
}
