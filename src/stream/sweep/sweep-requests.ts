// Sweeps an operator asks the running replicas for, as documents in the state collection
// (like Debezium's signal collection): `sweep --request` writes one, the owners of the
// partitions perform it (requested-sweeps.ts) and write their progress back (docs/operations.md).
// `{_id: "sweep-request:<id>", kind, rules, state, requestedAt, requestedBy, holder, claims,
// partitionCount, donePartitions, runs, error, startedAt, finishedAt, updatedAt}`.
import { randomBytes } from "node:crypto";
import type { Collection, Db } from "mongodb";
import type { RuleSweepReport } from "./sweep.js";

export const SWEEP_REQUEST_STATES = ["pending", "running", "done", "failed"] as const;
export type SweepRequestState = (typeof SWEEP_REQUEST_STATES)[number];

/** One rule's sweep for a request: its counts so far, and the candidates counted. */
export interface RequestedRuleProgress extends RuleSweepReport {
  candidates: number;
}

/** One replica's sweep of a group of partitions for a request, counted up to its last checkpoint. */
export interface RequestRun {
  partitions: number[];
  holder: string;
  /** Per rule, in the order swept. */
  rules: RequestedRuleProgress[];
  /** Every rule swept for these partitions. */
  done: boolean;
  startedAt: Date;
  updatedAt: Date;
}

export interface SweepRequest {
  _id: string;
  kind: typeof KIND;
  /** The rules to sweep, by name; empty for every rule the performing sidecar enforces. */
  rules: string[];
  state: SweepRequestState;
  requestedAt: Date;
  /** Where `sweep --request` ran (the host name), for the log. */
  requestedBy: string;
  /** The replica that last took it up, for the log. */
  holder?: string;
  /** How many runs it took: more than 1 when replicas share it or one takes another's partitions over. */
  claims: number;
  /** The `partitions` of the replicas performing it: it is done once each is. */
  partitionCount?: number;
  /** The partitions swept for it. */
  donePartitions: number[];
  /** Each run, by a random id: what the command prints the progress from. */
  runs: Record<string, RequestRun>;
  /** Why it failed (state "failed"). */
  error?: string;
  startedAt?: Date;
  finishedAt?: Date;
  updatedAt: Date;
}

const KIND = "sweepRequest";
const ID_PREFIX = "sweep-request:";
const OPEN_STATES: SweepRequestState[] = ["pending", "running"];

export class SweepRequests {
  private readonly requests: Collection<SweepRequest>;

  constructor(db: Db, stateCollection: string) {
    this.requests = db.collection<SweepRequest>(stateCollection);
  }

  /** Asks for a sweep of `rules` (empty: every rule); its id. */
  async create(rules: readonly string[], requestedBy: string): Promise<string> {
    const now = new Date();
    // Hex only: the id goes into the checkpoints' prefix, matched as a regular expression.
    const _id = `${ID_PREFIX}${now.getTime().toString(16)}${randomBytes(4).toString("hex")}`;
    await this.requests.insertOne({
      _id,
      kind: KIND,
      rules: [...rules],
      state: "pending",
      requestedAt: now,
      requestedBy,
      claims: 0,
      donePartitions: [],
      runs: {},
      updatedAt: now,
    });
    return _id;
  }

  find(id: string): Promise<SweepRequest | null> {
    return this.requests.findOne({ _id: id });
  }

  /** The requests waiting or being performed, oldest first. */
  open(): Promise<SweepRequest[]> {
    return this.requests
      .find({ kind: KIND, state: { $in: OPEN_STATES } }, { sort: { requestedAt: 1 } })
      .toArray();
  }

  /** `holder` starts a run of `partitions` (of `partitionCount`); false when the request ended meanwhile. */
  async startRun(request: SweepRequest, run: { id: string; partitions: number[]; holder: string }) {
    const now = new Date();
    const started: RequestRun = {
      partitions: run.partitions,
      holder: run.holder,
      rules: [],
      done: false,
      startedAt: now,
      updatedAt: now,
    };
    const result = await this.requests.updateOne(
      { _id: request._id, state: { $in: OPEN_STATES } },
      {
        $set: { state: "running", holder: run.holder, [`runs.${run.id}`]: started, updatedAt: now },
        $inc: { claims: 1 },
        $min: { startedAt: now },
      },
    );
    return result.matchedCount === 1;
  }

  /** Sets how many partitions the request is done with, unless a replica already did. */
  async notePartitionCount(id: string, partitionCount: number): Promise<void> {
    await this.requests.updateOne(
      { _id: id, partitionCount: { $exists: false } },
      { $set: { partitionCount } },
    );
  }

  /** Writes a run's progress; false when the request ended meanwhile. */
  async saveProgress(id: string, runId: string, rules: RequestedRuleProgress[]): Promise<boolean> {
    const now = new Date();
    const result = await this.requests.updateOne(
      { _id: id, state: "running" },
      { $set: { [`runs.${runId}.rules`]: rules, [`runs.${runId}.updatedAt`]: now, updatedAt: now } },
    );
    return result.matchedCount === 1;
  }

  /** The run swept its partitions; true when that completed the request (every partition done). */
  async partitionsDone(id: string, runId: string, partitions: readonly number[]): Promise<boolean> {
    const now = new Date();
    await this.requests.updateOne(
      { _id: id, state: "running" },
      {
        $addToSet: { donePartitions: { $each: [...partitions] } },
        $set: { [`runs.${runId}.done`]: true, updatedAt: now },
      },
    );
    const result = await this.requests.updateOne(
      {
        _id: id,
        state: "running",
        partitionCount: { $exists: true },
        $expr: { $gte: [{ $size: "$donePartitions" }, "$partitionCount"] },
      },
      { $set: { state: "done", finishedAt: now, updatedAt: now } },
    );
    return result.matchedCount === 1;
  }

  /** Ends the request as failed, with why. */
  async fail(id: string, error: string) {
    const now = new Date();
    await this.requests.updateOne(
      { _id: id, state: { $in: OPEN_STATES } },
      { $set: { state: "failed", error, finishedAt: now, updatedAt: now } },
    );
  }
}

/** Each rule's counts over every run of a request, in the order first swept: its report. */
export function requestedRuleTotals(
  request: Pick<SweepRequest, "runs" | "donePartitions" | "partitionCount">,
): RequestedRuleProgress[] {
  const totals = new Map<string, RequestedRuleProgress>();
  for (const run of Object.values(request.runs ?? {}))
    for (const rule of run.rules) totals.set(rule.rule, addedUp(totals.get(rule.rule), rule));
  // A rule's sweep is complete once every partition's is.
  const completed = (request.donePartitions?.length ?? 0) >= (request.partitionCount ?? Infinity);
  return [...totals.values()].map((rule) => ({ ...rule, completed }));
}

const EXAMPLES = 5;

function addedUp(
  total: RequestedRuleProgress | undefined,
  rule: RequestedRuleProgress,
): RequestedRuleProgress {
  if (!total) return { ...rule, changedByKind: { ...rule.changedByKind } };
  const changedByKind = { ...total.changedByKind };
  for (const [kind, count] of Object.entries(rule.changedByKind))
    changedByKind[kind] = (changedByKind[kind] ?? 0) + count;
  return {
    ...total,
    examined: total.examined + rule.examined,
    candidates: total.candidates + rule.candidates,
    changedByKind,
    elementsMoved: total.elementsMoved + rule.elementsMoved,
    skipped: total.skipped + rule.skipped,
    exampleKeys: [...total.exampleKeys, ...rule.exampleKeys].slice(0, EXAMPLES),
  };
}

/** The prefix of the checkpoints a request's sweep keeps (sweep-checkpoints.ts). */
export function requestCheckpointPrefix(id: string): string {
  return `${id}:`;
}
