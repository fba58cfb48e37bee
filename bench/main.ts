// `npm run bench [-- name ...]`: runs every benchmark, or the named ones, in order. Timings
// are printed, never asserted; a benchmark fails only when its result is wrong.
import type { Benchmark } from "./benchmark.js";
import { startClock } from "./measure.js";
import { heading, ms, printSummary } from "./report.js";
import { backlog } from "./backlog.js";
import { endToEnd } from "./end-to-end.js";
import { largeDocuments } from "./large-documents.js";
import { mixedBacklog } from "./mixed-backlog.js";
import { mixedLive } from "./mixed-live.js";
import { partitionStreams } from "./partition-streams.js";
import { planners } from "./planners.js";
import { replicas } from "./replicas.js";
import { roundTrips } from "./round-trips.js";
import { scale } from "./scale.js";
import { serverLookups } from "./server-lookups.js";

const BENCHMARKS: readonly Benchmark[] = [
  serverLookups,
  planners,
  endToEnd,
  backlog,
  mixedBacklog,
  mixedLive,
  roundTrips,
  partitionStreams,
  replicas,
  scale,
  largeDocuments,
];

function selected(names: readonly string[]): Benchmark[] | string {
  if (names.length === 0) return [...BENCHMARKS];
  const unknown = names.filter((name) => !BENCHMARKS.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    const width = Math.max(...BENCHMARKS.map((benchmark) => benchmark.name.length));
    const known = BENCHMARKS.map(
      (benchmark) => `  ${benchmark.name.padEnd(width)}  ${benchmark.description}`,
    );
    return [`unknown benchmark: ${unknown.join(", ")}`, "available:", ...known].join("\n");
  }
  return BENCHMARKS.filter((benchmark) => names.includes(benchmark.name));
}

async function main(): Promise<void> {
  const benchmarks = selected(process.argv.slice(2));
  if (typeof benchmarks === "string") {
    console.error(benchmarks);
    process.exitCode = 2;
    return;
  }
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  const elapsed = startClock();
  const summaries: Array<[string, string[]]> = [];
  for (const benchmark of benchmarks) summaries.push([benchmark.name, await benchmark.run()]);
  heading(`summary (${ms(elapsed())} in all)`);
  for (const [name, lines] of summaries) printSummary(name, lines);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
