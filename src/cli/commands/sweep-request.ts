// `mongo-pattern-sidecar sweep --request [--rule NAME] [--no-wait]`: asks the running sidecars
// for a sweep through a request document in the state collection (sweep-requests.ts), which
// the owners of the partitions perform; follows its progress until it ends (docs/operations.md).
import { hostname } from "node:os";
import type { Config } from "../../config/schema.js";
import { ConfigError } from "../../errors.js";
import type { Logger } from "../../ops/logger.js";
import {
  requestedRuleTotals,
  SweepRequests,
  type RequestedRuleProgress,
  type SweepRequest,
} from "../../stream/sweep/sweep-requests.js";
import type { SweepRequestArgs } from "../args.js";
import { connectDeployment } from "../deployment.js";
import { EXIT_STATUS, OperationalError } from "../failures.js";
import { newShutdownStack } from "../stop-signal.js";
import { formatSweepReport } from "./sweep.js";
import { pause } from "../../stream/retry.js";

/** How often the request is read while it is followed. */
const FOLLOW_INTERVAL_MS = 1000;

export async function sweepRequestCommand(
  config: Config,
  logger: Logger,
  options: SweepRequestArgs,
): Promise<number> {
  const rules = requestedRuleNames(config, options.rule);
  const shutdown = newShutdownStack(logger);
  try {
    const deployment = await connectDeployment(config, logger, shutdown, { leaseClient: false });
    const requests = new SweepRequests(deployment.db, config.stateCollection);
    const id = await requests.create(rules, hostname());
    process.stdout.write(
      `requested ${id}: a sweep of ${rules.length > 0 ? rules.join(", ") : "every rule"}\n`,
    );
    if (!options.wait) return 0;
    const ended = await followRequest(requests, id, config.leaseSeconds);
    process.stdout.write(`${formatSweepReport(requestedRuleTotals(ended), false)}\n`);
    const partitions = partitionsLine(ended);
    if (partitions) process.stdout.write(`${partitions}\n`);
    if (ended.state === "failed") {
      throw new OperationalError(`${id} failed: ${ended.error}`, EXIT_STATUS.failed, { request: id });
    }
    process.stdout.write(`${id} done\n`);
    return 0;
  } finally {
    await shutdown.close();
  }
}

/** The rule named (when it is one of the configuration's enabled rules), or none for all of them. */
function requestedRuleNames(config: Config, rule: string | undefined): string[] {
  if (rule === undefined) return [];
  const enabled = config.rules.filter((candidate) => candidate.enabled).map((candidate) => candidate.name);
  if (enabled.includes(rule)) return [rule];
  throw new ConfigError(
    `--rule: no enabled rule is named "${rule}"; the configuration's are ${enabled.join(", ")}`,
  );
}

/** Prints each change of the request's progress until it is done or failed; the request then. */
async function followRequest(
  requests: SweepRequests,
  id: string,
  leaseSeconds: number,
): Promise<SweepRequest> {
  const printed = new Map<string, string>();
  const startedAt = Date.now();
  let warnedUnclaimed = false;
  for (;;) {
    const request = await requests.find(id);
    if (!request)
      throw new OperationalError(`${id} was deleted before it ended`, EXIT_STATUS.failed, { request: id });
    if (request.state === "done" || request.state === "failed") return request;
    for (const rule of requestedRuleTotals(request)) printChanged(printed, rule.rule, ruleLine(rule));
    printChanged(printed, "partitions", partitionsLine(request));
    // Replicas look every few seconds; none doing so within a lease's life means none is there.
    if (request.state === "pending" && !warnedUnclaimed && Date.now() - startedAt > leaseSeconds * 2000) {
      warnedUnclaimed = true;
      process.stdout.write(
        `no sidecar has taken ${id} up yet: it waits until one holds partitions (Ctrl-C leaves it waiting)\n`,
      );
    }
    await pause(FOLLOW_INTERVAL_MS);
  }
}

/** Prints `line` when it is not what was last printed for `topic`. */
function printChanged(printed: Map<string, string>, topic: string, line: string | undefined): void {
  if (line === undefined || printed.get(topic) === line) return;
  printed.set(topic, line);
  process.stdout.write(`${line}\n`);
}

function ruleLine(rule: RequestedRuleProgress): string {
  const changed = Object.values(rule.changedByKind).reduce((sum, count) => sum + count, 0);
  return `${rule.rule}: examined ${rule.examined}, changed ${changed}`;
}

/** `partitions: 5 of 16 swept; sweeping 5, 6, 7 on <holder>; …`, once a replica took it up. */
function partitionsLine(request: SweepRequest): string | undefined {
  if (request.partitionCount === undefined) return undefined;
  const swept = `partitions: ${request.donePartitions.length} of ${request.partitionCount} swept`;
  const sweeping = [...latestRunOwners(request)].map(
    ([holder, partitions]) => `${partitions.join(", ")} on ${holder}`,
  );
  return sweeping.length > 0 ? `${swept}; sweeping ${sweeping.join("; ")}` : swept;
}

/** Who swept each partition not yet done last (the latest run naming it), by holder. */
function latestRunOwners(request: SweepRequest): Map<string, number[]> {
  const runs = Object.values(request.runs ?? {}).sort(
    (a, b) => a.startedAt.getTime() - b.startedAt.getTime(),
  );
  const latest = new Map<number, string>();
  for (const run of runs) for (const partition of run.partitions) latest.set(partition, run.holder);
  const byHolder = new Map<string, number[]>();
  for (const [partition, holder] of [...latest].sort(([a], [b]) => a - b)) {
    if (request.donePartitions.includes(partition)) continue;
    byHolder.set(holder, [...(byHolder.get(holder) ?? []), partition]);
  }
  return byHolder;
}
