// The owners of the partitions perform the sweeps operators request (sweep-requests.ts), beside
// their streams, one request at a time, each over the partitions it holds; each partition keeps
// the request's checkpoints of its own, so that a replica taking it over continues it
// (docs/operations.md, "Sweeping on request").
import { randomBytes } from "node:crypto";
import type { Db } from "mongodb";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { CorrectionTarget, PatternRule } from "../../patterns/driver.js";
import type { Plan } from "../../patterns/plan.js";
import { pause } from "../retry.js";
import { noteSweepStart, PartitionSweeps, type PartitionGroup } from "./partition-sweeps.js";
import { sweepGroups } from "./shared-sweep.js";
import type { RuleSweepReport } from "./sweep.js";
import {
  requestCheckpointPrefix,
  SweepRequests,
  type RequestedRuleProgress,
  type SweepRequest,
} from "./sweep-requests.js";

/** How often a replica looks for a new request: an operator waits at most this long. */
export const SWEEP_REQUEST_POLL_MS = 2000;

export interface RequestedSweepOptions {
  db: Db;
  stateCollection: string;
  /** The rules this sidecar enforces now. */
  rules: () => readonly PatternRule[];
  /** This replica's id, written on the runs it performs. */
  holder: string;
  /** The partitions this replica holds now, asked at each request. */
  ownedPartitions: () => number[];
  /** config `partitions`. */
  partitionCount: number;
  correct: (target: CorrectionTarget) => Promise<Plan>;
  /** Retries every parked target, due or not, as any sweep does first; stops when told. */
  retryParked: (shouldStop: () => boolean) => Promise<void>;
  /** False once the partitions held change or the lead ends: the partitions' sweeps stay for the next owner. */
  mayContinue: () => boolean;
  /** Ends a wait between looks. */
  signal: AbortSignal;
  logger: Logger;
  metrics: Metrics;
  pollMs?: number;
  pageSize?: number;
}

/** Looks for requests and performs this replica's share of them until told to stop. */
export async function performRequestedSweeps(options: RequestedSweepOptions): Promise<void> {
  const requests = new SweepRequests(options.db, options.stateCollection);
  while (options.mayContinue()) {
    try {
      const open = await requests.open();
      options.metrics.sweepRequestsOpen.set(open.length);
      const request = open.find((candidate) => pendingPartitions(options, candidate).length > 0);
      if (request) {
        await performRequest(options, requests, request);
        continue;
      }
    } catch (thrown) {
      const level = options.mayContinue() ? "warn" : "debug";
      reportError(options, thrown, "requested sweep failed; trying again", { level });
    }
    await pause(options.pollMs ?? SWEEP_REQUEST_POLL_MS, options.signal);
  }
  options.metrics.sweepRequestsOpen.set(0);
}

/** The partitions this replica holds that the request has not swept yet. */
function pendingPartitions(options: RequestedSweepOptions, request: SweepRequest): number[] {
  const done = new Set(request.donePartitions ?? []);
  return options.ownedPartitions().filter((partition) => !done.has(partition));
}

async function performRequest(
  options: RequestedSweepOptions,
  requests: SweepRequests,
  request: SweepRequest,
): Promise<void> {
  const { db, holder, logger, metrics } = options;
  const fields = { request: request._id };
  const rules = requestedRules(request, options.rules());
  if (typeof rules === "string") {
    await requests.fail(request._id, rules);
    metrics.sweepRequests.inc({ outcome: "failed" });
    logger.error({ ...fields, rules: request.rules }, `requested sweep refused: ${rules}`);
    return;
  }
  await requests.notePartitionCount(request._id, options.partitionCount);
  const sweeps = new PartitionSweeps(db, options.stateCollection, requestCheckpointPrefix(request._id));
  const start = await noteSweepStart(db);
  const partitions = pendingPartitions(options, request);
  const groups = await sweeps.groups(new Map(partitions.map((partition) => [partition, start])), rules);
  logger.info({ ...fields, rules: rules.map((rule) => rule.name), partitions }, "performing requested sweep");
  let ended = false;
  const shouldStop = () => ended || !options.mayContinue();
  const runIds = new Map<PartitionGroup, string>();
  await sweepGroups(
    {
      db,
      rules,
      stateCollection: options.stateCollection,
      logger,
      metrics,
      partitionCount: options.partitionCount,
      kind: "requested",
      correct: options.correct,
      retryParked: () => options.retryParked(shouldStop),
      shouldStop,
      pageSize: options.pageSize,
    },
    groups,
    {
      begin: async (group) => {
        const runId = randomBytes(6).toString("hex");
        runIds.set(group, runId);
        ended ||= !(await requests.startRun(request, { id: runId, partitions: group.partitions, holder }));
        const progress = new RunProgress();
        return async (report, candidates) => {
          ended ||= !(await requests.saveProgress(request._id, runId, progress.update(report, candidates)));
        };
      },
      swept: async (group) => {
        await sweeps.finish(group.partitions);
        if (!(await requests.partitionsDone(request._id, runIds.get(group)!, group.partitions))) return;
        metrics.sweepRequests.inc({ outcome: "done" });
        logger.info(fields, "requested sweep done");
      },
    },
  );
}

/** The enforced rules a request names (all of them when it names none), or why it cannot be performed. */
function requestedRules(request: SweepRequest, enforced: readonly PatternRule[]): PatternRule[] | string {
  if (request.rules.length === 0) return [...enforced];
  const unknown = request.rules.filter((name) => !enforced.some((rule) => rule.name === name));
  if (unknown.length === 0) return enforced.filter((rule) => request.rules.includes(rule.name));
  const names = enforced.map((rule) => rule.name).join(", ");
  return `rule ${unknown.join(", ")} is not enforced by a sidecar performing it (it enforces ${names})`;
}

/** One run's progress per rule, up to its last checkpoint. */
class RunProgress {
  private readonly byRule = new Map<string, RequestedRuleProgress>();

  update(report: RuleSweepReport, candidates: number): RequestedRuleProgress[] {
    this.byRule.set(report.rule, {
      ...report,
      changedByKind: { ...report.changedByKind },
      exampleKeys: [...report.exampleKeys],
      candidates,
    });
    return [...this.byRule.values()];
  }
}
