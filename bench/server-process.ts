// The embedded server in a process of its own, as mongod runs beside a real sidecar: its CPU,
// heap and garbage collections are then not the measured process's. Started through the
// package's command line, which prints the connection string once it listens; node's
// --trace-gc lines beside it tell when it paused for its own collections, which a mongod
// (no JavaScript heap) would not.
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface, type Interface } from "node:readline";
import { profileFlags } from "./profile-flags.js";

const CLI = fileURLToPath(new URL("../packages/mongodb-embedded/src/cli.ts", import.meta.url));
const START_TIMEOUT_MS = 30_000;

/** One collection of the server's heap, as --trace-gc printed it. */
export interface GcPause {
  /** When its line arrived (performance.now() of the bench). */
  at: number;
  major: boolean;
  /**
   * The longest the server's thread stood still for it, in ms: its pause, or for a major one
   * its longest step of incremental marking, if that was longer (the line sums the steps up).
   */
  ms: number;
  /**
   * For a major one marked incrementally: how long from the start of its marking to its end,
   * in ms, a stretch in which the server's thread took marking steps between its commands
   * (`steps` ms of them in all) while marking threads took cores beside it.
   */
  marking?: { wallMs: number; steps: number };
}

export interface ServerProcess {
  uri: string;
  /** Its process id, for its CPU time. */
  pid: number | undefined;
  /** Its collections since `since` (performance.now()). */
  gcPausesSince(since: number): GcPause[];
  stop(): Promise<void>;
}

// "[pid:0x…]  1234 ms: Mark-Compact 97.2 (102.1) -> 85.1 (101.3) MB, 45.21 / 0.00 ms  (…"
const GC_LINE = /: (Scavenge|Minor Mark-Sweep|Mark-Compact|Mark-Sweep)\b[^,]*, ([\d.]+) \/ [\d.]+ ms/;
// "… (+ 12.3 ms in 45 steps since start of marking, biggest step 1.2 ms, walltime since start of marking 93 ms)"
const BIGGEST_STEP = /biggest step ([\d.]+) ms/;
const MARKING =
  /\+ ([\d.]+) ms in \d+ steps since start of marking.*walltime since start of marking ([\d.]+) ms/;

/** The collection a --trace-gc line reports, if it reports one. */
function gcPause(line: string): GcPause | undefined {
  const match = GC_LINE.exec(line);
  if (!match) return undefined;
  const collector = match[1]!;
  const step = Number(BIGGEST_STEP.exec(line)?.[1] ?? 0);
  const marking = MARKING.exec(line);
  const pause: GcPause = {
    at: performance.now(),
    major: collector === "Mark-Compact" || collector === "Mark-Sweep",
    ms: Math.max(Number(match[2]), step),
  };
  if (marking) pause.marking = { steps: Number(marking[1]), wallMs: Number(marking[2]) };
  return pause;
}

/** `changeHistory`: the change events the server keeps (its oplog's size; the command line's default otherwise). */
export async function startServerProcess({
  changeHistory,
}: { changeHistory?: number } = {}): Promise<ServerProcess> {
  // As 8.0, like the tests' server: a correction's writes then go in one bulkWrite.
  const args = [
    "--trace-gc",
    // A young generation of 4 MiB semi-spaces (the sidecar's image sets the same): a scavenge,
    // a pause mongod does not have, then copies at most that much. With V8's default (up to
    // 16 MiB on this heap), ad-hoc live rounds at 200/s saw a third as many scavenges, each
    // about twice as long, and ad-hoc drains with corrections more pings over 100 ms.
    "--max-semi-space-size=4",
    // An old generation of 2 GiB from the start: V8 then runs no major collection until the
    // server's heap reaches it (none in the seven backlog runs with it), rather than one to four
    // in a 30 s round at 200/s, as the heap grows by what the server keeps of each trigger (its
    // documents, their versions, the change history). A mongod has no such collections; they
    // had fallen in the 200/s round in five of the seven runs before, and in some runs' drains.
    "--initial-old-space-size=2048",
    ...profileFlags(),
    "--conditions=source",
    "--import",
    "tsx",
    CLI,
    "--port",
    "0",
    "--server-version",
    "8.0",
    ...(changeHistory === undefined ? [] : ["--change-history", String(changeHistory)]),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
  });
  // A bench that dies must not leave its server running.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const lines = createInterface({ input: child.stdout! });
  const pauses: GcPause[] = [];
  const output = new EventEmitter();
  lines.on("line", (line) => {
    const pause = gcPause(line);
    if (pause) pauses.push(pause);
    else output.emit("address", line);
  });
  const uri = await address(child, output, lines);
  return {
    uri,
    pid: child.pid,
    gcPausesSince: (since) => pauses.filter((pause) => pause.at >= since),
    async stop() {
      process.off("exit", killOnExit);
      lines.close();
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The connection string the command line prints, or an error naming why the server did not start. */
async function address(child: ChildProcess, output: EventEmitter, lines: Interface): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`the embedded server printed no address in ${START_TIMEOUT_MS} ms`)),
    START_TIMEOUT_MS,
  );
  const { signal } = controller;
  const exited = once(child, "exit", { signal }).then(([code]) => {
    throw new Error(`the embedded server's process exited with code ${String(code)} before listening`);
  });
  const printed = once(output, "address", { signal }).then(([text]) => String(text));
  try {
    return await Promise.race([printed, exited]);
  } catch (error) {
    lines.close();
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
