// Finds the real Prometheus binaries (Debian's `prometheus` package: /usr/bin/promtool and
// /usr/bin/prometheus). CI installs the package before the tests; see .ci/run.
import { spawnSync } from "node:child_process";

export function findExecutable(name: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path !== "" ? path : undefined;
}

export function requireExecutable(name: string): string {
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
