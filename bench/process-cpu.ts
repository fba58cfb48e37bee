// CPU time of the processes a bench runs beside it (the server, a sidecar, a sweep), from
// /proc/<pid>/stat (Linux); elsewhere there is no such file, and the figure is left out.
import { readFileSync } from "node:fs";

// Linux reports utime and stime in USER_HZ ticks, 100 per second on every architecture Node runs on.
const TICKS_PER_SECOND = 100;

/** User plus system CPU time of process `pid` in milliseconds; undefined where /proc cannot tell. */
export function processCpuMs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : cpuMsOf(`/proc/${pid}/stat`);
}

/**
 * The same of its main thread only (its JavaScript; the rest is V8's helper threads, which
 * mark, scavenge and compile beside it, and libuv's pool).
 */
export function mainThreadCpuMs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOf(statFile: string): number | undefined {
  try {
    const stat = readFileSync(statFile, "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** This process's user plus system CPU time in milliseconds. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
