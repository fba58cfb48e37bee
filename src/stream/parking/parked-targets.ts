// Targets whose corrections kept failing, kept in the state collection as
// `{_id: {parked: <target key>}, rule, role, collection, key, detail, error, reason, attempts, ...}` so that
// the stream moves past them and any replica that leads later retries them. A parked target
// is retried with growing pauses and leaves the list once a correction of it succeeds.
import { BSON } from "mongodb";
import type { Collection, Db, Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { targetKey, type CorrectionTarget } from "../events/targets.js";
import { numbersByValue } from "../../patterns/bson/bson-value.js";
import { TransactionTooLargeError } from "../../errors.js";

interface ParkedDocument {
  _id: { parked: string };
  rule: string;
  role: string;
  collection: string;
  key: unknown;
  detail?: Document;
  error: string;
  /** "too_large": a correction that commits neither whole nor in parts; "failed": any other. */
  reason: ParkReason;
  attempts: number;
  /** Retries since it was parked; the pause before the next one doubles with each. */
  retries: number;
  parkedAt: Date;
  nextAttemptAt: Date;
}

/** The pause before a parked target's first retry, unless the runner is told otherwise. */
export const PARKED_FIRST_RETRY_MS = 10_000;
// Long: a parked target failed many times already; what fixes it is usually an operator.
const MAX_RETRY_PAUSE_MS = 10 * 60_000;

// A target with a detail is a correction of its own (a delete to propagate): parked beside,
// not in place of, a parked plain correction of the same document.
function parkedId(target: CorrectionTarget): { parked: string } {
  const detail =
    target.detail === undefined
      ? ""
      : `|${BSON.EJSON.stringify(numbersByValue(target.detail), { relaxed: false })}`;
  return { parked: `${targetKey(target)}${detail}` };
}

export type ParkReason = "too_large" | "failed";

function parkReason(error: Error): ParkReason {
  return error instanceof TransactionTooLargeError ? "too_large" : "failed";
}

export class ParkedTargets {
  private readonly parked: Collection<ParkedDocument>;

  constructor(
    db: Db,
    stateCollection: string,
    private readonly rules: readonly PatternRule[],
    /** The pause before the first retry; it doubles with every failed retry. */
    private readonly firstRetryMs: number,
  ) {
    this.parked = db.collection<ParkedDocument>(stateCollection);
  }

  /** Parks a target after `attempts` failed corrections (or records one more failed retry). */
  async park(target: CorrectionTarget, error: Error, attempts: number): Promise<void> {
    const id = parkedId(target);
    const previous = await this.parked.findOne({ _id: id });
    const retries = previous ? previous.retries + 1 : 0;
    await this.parked.updateOne(
      { _id: id },
      {
        $set: {
          rule: target.rule.name,
          role: target.role,
          collection: target.collection,
          key: target.id,
          ...(target.detail && { detail: target.detail }),
          error: error.message,
          reason: parkReason(error),
          attempts: (previous?.attempts ?? 0) + attempts,
          retries,
          nextAttemptAt: new Date(Date.now() + this.retryPauseMs(retries)),
        },
        $setOnInsert: { parkedAt: new Date() },
      },
      { upsert: true },
    );
  }

  async unpark(target: CorrectionTarget): Promise<void> {
    await this.parked.deleteOne({ _id: parkedId(target) });
  }

  /** Parked targets of the configured rules, all of them or only those due for a retry. */
  async list(options: { dueOnly: boolean }): Promise<CorrectionTarget[]> {
    const filter = options.dueOnly ? { nextAttemptAt: { $lte: new Date() } } : {};
    const parked = await this.parked.find({ "_id.parked": { $exists: true }, ...filter }).toArray();
    return parked.flatMap((doc) => {
      const rule = this.rules.find((candidate) => candidate.name === doc.rule);
      if (!rule) return [];
      const target = { rule, role: doc.role, collection: doc.collection, id: doc.key };
      return [doc.detail === undefined ? target : { ...target, detail: doc.detail }];
    });
  }

  async count(): Promise<number> {
    return this.parked.countDocuments({ "_id.parked": { $exists: true } });
  }

  private retryPauseMs(retries: number): number {
    return Math.min(MAX_RETRY_PAUSE_MS, this.firstRetryMs * 2 ** retries);
  }
}
