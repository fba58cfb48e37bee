// `mongo-pattern-sidecar sweep --request [--rule NAME] [--no-wait]`: asks the running sidecars
// for a sweep through a request document in the state collection (sweep-requests.ts), which
// the writer lease's holder performs; follows its progress until it ends (docs/operations.md).
import { hostname } from "node:os";
import type { Config } from "../../config/schema.js";
import { ConfigError } from "../../errors.js";
import type { Logger } from "../../ops/logger.js";
import {
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
    process.stdout.write(`${formatSweepReport(ended.progress, false)}\n`);
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
    for (const rule of request.progress) printChanged(printed, rule);
    // A leader looks every few seconds; one that does not within a lease's life is not there.
    if (request.state === "pending" && !warnedUnclaimed && Date.now() - startedAt > leaseSeconds * 2000) {
      warnedUnclaimed = true;
      process.stdout.write(
        `no sidecar has taken ${id} up yet: it waits until one holds the writer lease (Ctrl-C leaves it waiting)\n`,
      );
    }
    await pause(FOLLOW_INTERVAL_MS);
  }
}

function printChanged(printed: Map<string, string>, rule: RequestedRuleProgress): void {
  const changed = Object.values(rule.changedByKind).reduce((sum, count) => sum + count, 0);
  const line = `${rule.rule}: examined ${rule.examined} of ${rule.candidates}, changed ${changed}`;
  if (printed.get(rule.rule) === line) return;
  printed.set(rule.rule, line);
  process.stdout.write(`${line}\n`);
}
