// Holds the server process still for part of every period (SIGSTOP, then SIGCONT), so that one
// replica meets a server as slow as four replicas' streams make it on this 2-core machine: its
// CPU per correction at that pace, against the same replica at full speed in the same run,
// tells what the pace costs apart from what partitions cost. docs/benchmarks.md, "replicas".

/** A drain's replica count and, when throttled, the share of each period the server runs. */
export interface ReplicaRun {
  replicas: number;
  serverShare?: number;
}

/**
 * Long enough that a signal's own cost is small beside it, short against a correction's
 * round trips (a batch took 10 to 30 ms here), so that every command waits about as often.
 */
const PERIOD_MS = 30;

const RUN_FORMAT = /^(\d+)(?:@(\d+)%)?$/;

/** "4" (four replicas) or "1@33%" (one, the server running 33% of the time). */
export function parseReplicaRun(text: string): ReplicaRun {
  const match = RUN_FORMAT.exec(text.trim());
  const replicas = Number(match?.[1]);
  const percent = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || replicas < 1 || (percent !== undefined && (percent < 1 || percent > 100)))
    throw new Error(
      `REPLICAS: "${text}" is not a replica count ("4") or a count with the server's share of time ("1@33%", 1 to 100%)`,
    );
  return percent === undefined ? { replicas } : { replicas, serverShare: percent / 100 };
}

/** "N=4", or "N=1 (server 33%)". */
export function replicaRunName({ replicas, serverShare }: ReplicaRun): string {
  return serverShare === undefined
    ? `N=${replicas}`
    : `N=${replicas} (server ${Math.round(serverShare * 100)}%)`;
}

/**
 * Pauses `pid` for (1 − runShare) of each period until the returned function is called, which
 * lets it run again. Nothing is paused for a share of 1 or without a process.
 */
export function throttleProcess(pid: number | undefined, runShare: number | undefined): () => void {
  if (pid === undefined || runShare === undefined || runShare >= 1) return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      stopped = true; // the process is gone: nothing left to hold
    }
  };
  const pause = () => {
    if (stopped) return;
    signal("SIGSTOP");
    timer = setTimeout(resume, PERIOD_MS * (1 - runShare));
  };
  const resume = () => {
    signal("SIGCONT");
    if (!stopped) timer = setTimeout(pause, PERIOD_MS * runShare);
  };
  pause();
  return () => {
    stopped = true;
    clearTimeout(timer);
    signal("SIGCONT");
  };
}
