// One sidecar replica as deployed: the CLI in a child process of its own, with its own
// config file and HTTP port. Every incarnation appends its JSON log lines to one file.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { freePort } from "../test/ops/free-port.js";
import { readinessAt, type Readiness } from "../test/support/cli-replicas.js";
import { createWriteStream, type WriteStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Where the soak's and the bench's replicas always took it from.
export { freePort };

export interface ReplicaOptions {
  name: string;
  uri: string;
  /** The replica's config, written as JSON (a YAML subset) beside its log. */
  config: Record<string, unknown>;
  dir: string;
  /** Environment variables of its own (NODE_OPTIONS, say), over the parent's. */
  env?: Record<string, string>;
  /** Node's flags before the script (the image's V8 flags, say). */
  nodeFlags?: string[];
  /**
   * The script it runs: "dist", the compiled `dist/main.js` the image runs (`npm run build`
   * first); "source" (the default), `src/main.ts` through tsx, which compiles each module as it
   * loads and keeps its loader thread and source maps beside the sidecar.
   */
  entry?: "source" | "dist";
}

const ENTRIES = {
  source: ["--conditions=source", "--import", "tsx", "src/main.ts"],
  dist: ["dist/main.js"],
};

export class Replica {
  private child: ChildProcess | undefined;
  private exited: Promise<unknown> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private readonly log: WriteStream;
  readonly logFile: string;
  private readonly configFile: string;

  constructor(
    private readonly options: ReplicaOptions,
    readonly port: number,
  ) {
    this.logFile = join(options.dir, `${options.name}.log`);
    this.configFile = join(options.dir, `${options.name}.json`);
    this.log = createWriteStream(this.logFile, { flags: "a" });
  }

  /** The running incarnation's process id. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    await writeFile(this.configFile, JSON.stringify({ ...this.options.config, http: { port: this.port } }));
    const child = spawn(
      process.execPath,
      [
        ...(this.options.nodeFlags ?? []),
        ...ENTRIES[this.options.entry ?? "source"],
        "run",
        "--config",
        this.configFile,
      ],
      {
        env: { ...process.env, ...this.options.env, MONGODB_URI: this.options.uri },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    child.stdout.pipe(this.log, { end: false });
    this.exited = once(child, "exit");
    this.child = child;
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** Waits for the process to end; SIGKILLs it when it takes longer than `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<void> {
    const timer = setTimeout(() => this.signal("SIGKILL"), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  readiness(): Promise<Readiness | undefined> {
    return readinessAt(this.port);
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; closes the log. Every call returns the same promise. */
  stop(timeoutMs = 15_000): Promise<void> {
    this.stopping ??= (async () => {
      this.signal("SIGCONT");
      this.signal("SIGTERM");
      await this.waitForExit(timeoutMs);
      await new Promise((resolve) => this.log.end(resolve));
    })();
    return this.stopping;
  }

  async logLines(): Promise<Record<string, unknown>[]> {
    const text = await readFile(this.logFile, "utf8");
    return text.split("\n").flatMap(parseLogLine);
  }
}

// A replica killed mid-write leaves a partial line, which the next incarnation's first line follows.
function parseLogLine(line: string): Record<string, unknown>[] {
  try {
    return [JSON.parse(line.slice(line.lastIndexOf('{"level"'))) as Record<string, unknown>];
  } catch {
    return [];
  }
}
