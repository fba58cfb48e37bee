// Finds the real Prometheus binaries (Debian's `prometheus` package: /usr/bin/promtool and
// /usr/bin/prometheus). CI installs the package before the tests; see .ci/run. Elsewhere a
// missing tool skips the tests that need it, with one line saying which; under CI it fails them.
import { spawnSync } from "node:child_process";

export type PrometheusTool = "promtool" | "prometheus";

export function findExecutable(name: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path !== "" ? path : undefined;
}

/** CI=true (or any value but "", "0" and "false"), as CI services set it. */
export function runningInCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/**
 * node:test's `skip` option for a test that needs `tool`: a one-line reason when the tool is
 * missing outside CI; false (run) when it is installed, or under CI, where the test then fails
 * in requireExecutable.
 */
export function skipWithout(tool: PrometheusTool): string | false {
  if (findExecutable(tool) !== undefined || runningInCi()) return false;
  return `${tool} not found on PATH (Debian package prometheus); CI installs it`;
}

export function requireExecutable(name: PrometheusTool): string {
  const path = findExecutable(name);
  if (path === undefined) {
    throw new Error(
      `${name} not found on PATH: install Debian's prometheus package ` +
        "(apt-get install -y prometheus), as .ci/run does before npm test",
    );
  }
  return path;
}

/** `promtool check metrics` over an exposition: its exit status and everything it printed. */
export function promtoolCheckMetrics(exposition: string): { status: number | null; problems: string } {
  const checked = spawnSync(requireExecutable("promtool"), ["check", "metrics"], {
    input: exposition,
    encoding: "utf8",
    timeout: 10_000,
  });
  return { status: checked.status, problems: `${checked.stdout}${checked.stderr}`.trim() };
}

/** `promtool <args>` (check rules, test rules): its exit status and everything it printed. */
export function promtool(args: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync(requireExecutable("promtool"), args, { encoding: "utf8", timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}
