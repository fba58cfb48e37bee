// Reads a target's state and asks its pure planner for the writes. Used inside a
// correction's transaction (with a session) and by sweeps to pre-check (without one).
import type { ClientSession, Db } from "mongodb";
import { planBucketSplit } from "../patterns/bucket.js";
import { planOutlierMove, planOverflowChunkSplit } from "../patterns/outlier.js";
import { planSubset } from "../patterns/subset.js";
import type { Plan } from "../patterns/types.js";
import { readBucketState } from "./readers/bucket.js";
import { readOutlierState, readOverflowChunkState } from "./readers/outlier.js";
import { readSubsetState } from "./readers/subset.js";
import type { CorrectionTarget } from "./targets.js";

const NOTHING_TO_DO: Plan = { outcome: "none" };

/** The plan for a target as the database holds it now; a vanished document needs nothing. */
export async function planTarget(db: Db, target: CorrectionTarget, session?: ClientSession): Promise<Plan> {
  switch (target.role) {
    case "outlier-source": {
      const state = await readOutlierState(db, target.rule, target.id, session);
      return state ? planOutlierMove(target.rule, state) : NOTHING_TO_DO;
    }
    case "outlier-chunk": {
      const state = await readOverflowChunkState(db, target.rule, target.id, session);
      return state ? planOverflowChunkSplit(target.rule, state) : NOTHING_TO_DO;
    }
    case "bucket": {
      const state = await readBucketState(db, target.rule, target.id, session);
      return state ? planBucketSplit(target.rule, state) : NOTHING_TO_DO;
    }
    case "subset-source": {
      const state = await readSubsetState(db, target.rule, target.id, session);
      return state ? planSubset(target.rule, state) : NOTHING_TO_DO;
    }
  }
}
