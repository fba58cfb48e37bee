// BENCH_PROFILE_DIR=<dir> makes every process a bench starts (the embedded server, the
// sidecar's) write a V8 CPU profile there when it exits, for a look at where a drain's CPU
// went (node's --cpu-prof; open the files in Chrome's DevTools).
export function profileFlags(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}
