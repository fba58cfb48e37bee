// The writer lease's holder performs the sweeps operators request (sweep-requests.ts), beside
// its stream, one at a time, over the keys it owns (key-ownership.ts); each request keeps its
// own checkpoints, so that a replica taking the lease over continues it (docs/operations.md).
import type { Db } from "mongodb";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { CorrectionTarget, PatternRule } from "../../patterns/driver.js";
import type { Plan } from "../../patterns/plan.js";
import type { KeyOwnership } from "../key-ownership.js";
import { pause } from "../retry.js";
import { sweep, type RuleSweepReport } from "./sweep.js";
import { SweepCheckpoints } from "./sweep-checkpoints.js";
import {
  requestCheckpointPrefix,
  SweepRequests,
  type RequestedRuleProgress,
  type SweepRequest,
} from "./sweep-requests.js";

/** How often the lease holder looks for a new request: an operator waits at most this long. */
export const SWEEP_REQUEST_POLL_MS = 2000;
const EXAMPLES = 5;

export interface RequestedSweepOptions {
  db: Db;
  stateCollection: string;
  /** The rules this sidecar enforces now. */
  rules: () => readonly PatternRule[];
  /** The lease holder's id, written on the requests it performs. */
  holder: string;
  /** Which keys this replica corrects, asked at each request. */
  ownership: () => KeyOwnership;
  correct: (target: CorrectionTarget) => Promise<Plan>;
  /** Retries every parked target, due or not, as any sweep does first; stops when told. */
  retryParked: (shouldStop: () => boolean) => Promise<void>;
  /** False once the lease is lost or the lead ends: the request stays open for the next holder. */
  mayContinue: () => boolean;
  /** Ends a wait between looks. */
  signal: AbortSignal;
  logger: Logger;
  metrics: Metrics;
  pollMs?: number;
  pageSize?: number;
}

/** Looks for requests and performs them until the lead ends. */
export async function performRequestedSweeps(options: RequestedSweepOptions): Promise<void> {
  const requests = new SweepRequests(options.db, options.stateCollection);
  while (options.mayContinue()) {
    try {
      options.metrics.sweepRequestsOpen.set(await requests.countOpen());
      const request = await requests.claim(options.holder);
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

async function performRequest(
  options: RequestedSweepOptions,
  requests: SweepRequests,
  request: SweepRequest,
): Promise<void> {
  const { holder, logger, metrics } = options;
  const fields = { request: request._id, claims: request.claims };
  const rules = requestedRules(request, options.rules());
  if (typeof rules === "string") {
    await requests.finish(request._id, holder, { state: "failed", error: rules });
    metrics.sweepRequests.inc({ outcome: "failed" });
    logger.error({ ...fields, rules: request.rules }, `requested sweep refused: ${rules}`);
    return;
  }
  const progress = new RequestProgress(request.progress);
  const ownership = options.ownership();
  logger.info(
    { ...fields, rules: rules.map((rule) => rule.name), keys: ownership.description },
    "performing requested sweep",
  );
  let claimedElsewhere = false;
  const checkpoints = new SweepCheckpoints(
    options.db,
    options.stateCollection,
    requestCheckpointPrefix(request._id),
  );
  const remaining = rules.filter((rule) => !progress.completed(rule.name));
  const shouldStop = () => claimedElsewhere || !options.mayContinue();
  const reports = await sweep({
    db: options.db,
    rules: remaining,
    stateCollection: options.stateCollection,
    logger,
    metrics,
    correct: options.correct,
    owns: (target) => ownership.owns(target),
    retryParked: () => options.retryParked(shouldStop),
    shouldStop,
    checkpoints: { store: checkpoints, start: await checkpoints.start(options.db) },
    pageSize: options.pageSize,
    onProgress: async (report, candidates) => {
      const saved = await requests.saveProgress(request._id, holder, progress.update(report, candidates));
      claimedElsewhere ||= !saved;
    },
  });
  // Stopped halfway: the request stays running, for whoever holds the lease next.
  if (reports.length < remaining.length || !reports.every((report) => report.completed)) return;
  await checkpoints.clearAll();
  await requests.finish(request._id, holder, { state: "done" });
  metrics.sweepRequests.inc({ outcome: "done" });
  logger.info({ ...fields, progress: progress.rules }, "requested sweep done");
}

/** The enforced rules a request names (all of them when it names none), or why it cannot be performed. */
function requestedRules(request: SweepRequest, enforced: readonly PatternRule[]): PatternRule[] | string {
  if (request.rules.length === 0) return [...enforced];
  const unknown = request.rules.filter((name) => !enforced.some((rule) => rule.name === name));
  if (unknown.length === 0) return enforced.filter((rule) => request.rules.includes(rule.name));
  const names = enforced.map((rule) => rule.name).join(", ");
  return `rule ${unknown.join(", ")} is not enforced by the sidecar holding the writer lease (it enforces ${names})`;
}

/**
 * A request's progress per rule: what earlier claims of it stored (up to their last
 * checkpoint, where this claim continues) plus this claim's counts.
 */
class RequestProgress {
  private readonly stored: Map<string, RequestedRuleProgress>;
  private readonly byRule: Map<string, RequestedRuleProgress>;

  constructor(stored: readonly RequestedRuleProgress[]) {
    this.stored = new Map(stored.map((rule) => [rule.rule, rule]));
    this.byRule = new Map(this.stored);
  }

  get rules(): RequestedRuleProgress[] {
    return [...this.byRule.values()];
  }

  completed(rule: string): boolean {
    return this.stored.get(rule)?.completed === true;
  }

  update(report: RuleSweepReport, candidates: number): RequestedRuleProgress[] {
    this.byRule.set(report.rule, addedTo(this.stored.get(report.rule), report, candidates));
    return this.rules;
  }
}

function addedTo(
  before: RequestedRuleProgress | undefined,
  report: RuleSweepReport,
  candidates: number,
): RequestedRuleProgress {
  const changedByKind = { ...before?.changedByKind };
  for (const [kind, count] of Object.entries(report.changedByKind))
    changedByKind[kind] = (changedByKind[kind] ?? 0) + count;
  const examinedBefore = before?.examined ?? 0;
  return {
    rule: report.rule,
    collection: report.collection,
    examined: examinedBefore + report.examined,
    candidates: examinedBefore + candidates,
    changedByKind,
    elementsMoved: (before?.elementsMoved ?? 0) + report.elementsMoved,
    skipped: (before?.skipped ?? 0) + report.skipped,
    exampleKeys: [...(before?.exampleKeys ?? []), ...report.exampleKeys].slice(0, EXAMPLES),
    completed: report.completed,
  };
}
