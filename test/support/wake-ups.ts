// How often a process's event loop slept and was woken: its main thread's voluntary context
// switches, from /proc (Linux). A small VM charges each wake-up CPU, so a sidecar should not
// wake for nothing (test/integration/cli/idle-wake-ups.test.ts, bench/replicas.ts).
import { readFileSync } from "node:fs";

/** Times process `pid`'s main thread gave up its core to wait; undefined where /proc cannot tell. */
export function processWakeUps(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const count = /^voluntary_ctxt_switches:\s*(\d+)$/m.exec(status)?.[1];
    return count === undefined ? undefined : Number(count);
  } catch {
    return undefined;
  }
}
