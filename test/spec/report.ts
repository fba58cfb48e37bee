// The runner's output: one line per test, known failures marked as such, and the closing count.
import type { KnownFailures } from "./known-failures.js";
import type { TestReport } from "./run-file.js";

export class RunReport {
  passed = 0;
  failed = 0;
  skipped = 0;
  /** Failures listed in the known-failures file: counted as failed, but they do not fail the run. */
  knownFailed = 0;
  private readonly stale: string[] = [];

  constructor(
    private readonly knownFailures: KnownFailures,
    private readonly print: (line: string) => void,
  ) {}

  add({ file, description, outcome }: TestReport): void {
    const name = `${file} :: ${description}`;
    const known = this.knownFailures.find(file, description);
    if (outcome.status === "pass") {
      this.passed++;
      this.print(`pass ${name}`);
      if (known) this.stale.push(name);
    } else if (outcome.status === "skip") {
      this.skipped++;
      this.print(`skip ${name} (${outcome.reason})`);
    } else {
      this.failed++;
      if (known) this.knownFailed++;
      this.print(
        known ? `known ${name} — ${outcome.message} [${known.reason}]` : `FAIL ${name} — ${outcome.message}`,
      );
    }
  }

  /** Unexpected failures make the run fail; stale known-failure entries only warn. */
  get succeeded(): boolean {
    return this.failed === this.knownFailed;
  }

  finish(knownFailuresPath: string): void {
    for (const name of this.stale)
      this.print(`warning: listed in ${knownFailuresPath} but passes now: ${name}`);
    if (this.knownFailed > 0)
      this.print(`(${this.knownFailed} of the failures are known, listed in ${knownFailuresPath})`);
    this.print(`${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped`);
  }
}
