// Sweeps an operator asks the running replicas for, as documents in the state collection
// (like Debezium's signal collection): `sweep --request` writes one, the writer lease's holder
// performs it (requested-sweeps.ts) and writes its progress back (docs/operations.md).
// `{_id: "sweep-request:<id>", kind, rules, state, requestedAt, requestedBy, holder, claims,
// progress, error, startedAt, finishedAt, updatedAt}`.
import { randomBytes } from "node:crypto";
import type { Collection, Db } from "mongodb";
import type { RuleSweepReport } from "./sweep.js";

export const SWEEP_REQUEST_STATES = ["pending", "running", "done", "failed"] as const;
export type SweepRequestState = (typeof SWEEP_REQUEST_STATES)[number];

/** One rule's sweep for a request: its counts so far, and the candidates counted. */
export interface RequestedRuleProgress extends RuleSweepReport {
  candidates: number;
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
  /** The replica performing it; a takeover's claim replaces it, so a stale one's writes match nothing. */
  holder?: string;
  /** How often a replica took it up: more than 1 after a takeover. */
  claims: number;
  /** Per rule, in the order swept; a completed rule is not swept again by a takeover. */
  progress: RequestedRuleProgress[];
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
      progress: [],
      updatedAt: now,
    });
    return _id;
  }

  find(id: string): Promise<SweepRequest | null> {
    return this.requests.findOne({ _id: id });
  }

  /** Requests waiting or being performed: a handful, read by `find` rather than an aggregate. */
  async countOpen(): Promise<number> {
    const open = this.requests.find({ kind: KIND, state: { $in: OPEN_STATES } }, { projection: { _id: 1 } });
    return (await open.toArray()).length;
  }

  /**
   * The oldest open request, now held by `holder`: a pending one, or one a replica that lost
   * the lease left running, which continues from its checkpoints.
   */
  claim(holder: string): Promise<SweepRequest | null> {
    const now = new Date();
    return this.requests.findOneAndUpdate(
      { kind: KIND, state: { $in: OPEN_STATES } },
      { $set: { state: "running", holder, updatedAt: now }, $inc: { claims: 1 }, $min: { startedAt: now } },
      { sort: { requestedAt: 1 }, returnDocument: "after" },
    );
  }

  /** Writes the progress; false when another replica claimed the request meanwhile. */
  async saveProgress(id: string, holder: string, progress: RequestedRuleProgress[]): Promise<boolean> {
    const result = await this.requests.updateOne(
      { _id: id, holder, state: "running" },
      { $set: { progress, updatedAt: new Date() } },
    );
    return result.matchedCount === 1;
  }

  /** Ends the request: done, or failed with `error`. */
  async finish(id: string, holder: string, outcome: { state: "done" } | { state: "failed"; error: string }) {
    const now = new Date();
    await this.requests.updateOne(
      { _id: id, holder, state: "running" },
      { $set: { ...outcome, finishedAt: now, updatedAt: now } },
    );
  }
}

/** The prefix of the checkpoints a request's sweep keeps (sweep-checkpoints.ts). */
export function requestCheckpointPrefix(id: string): string {
  return `${id}:`;
}
