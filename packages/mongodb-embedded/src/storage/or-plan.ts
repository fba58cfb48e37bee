// A top-level $or read through the indexes: each branch (ANDed with the filter's other fields)
// is planned on its own, as mongod's subplanner does (src/mongo/db/exec/subplan.cpp), and the
// branches' documents united once each, as its OR stage does (src/mongo/db/exec/or.cpp).
import type { Document } from "bson";
import { planLookup, type IndexLookup } from "./candidate-keys.js";
import { planIndexScan, type IndexScanPlan } from "./index-scan.js";
import type { StoredCollection } from "./stored-collection.js";

/** How one branch of the $or reads its documents. */
export type BranchPlan = { scan: IndexScanPlan } | { lookup: IndexLookup };

/** One plan per branch of the filter's top-level $or; undefined when there is none or any
 * branch has no index to read through (then, as on mongod, the whole read scans). */
export function planOrBranches(
  collection: StoredCollection,
  filter: Document,
  collated: boolean,
): BranchPlan[] | undefined {
  const clauses: unknown = filter.$or;
  if (!Array.isArray(clauses) || clauses.length === 0) return undefined;
  const { $or: _branches, ...rest } = filter;
  const shared = Object.keys(rest).length > 0 ? rest : undefined;
  const plans: BranchPlan[] = [];
  for (const clause of clauses) {
    if (clause === null || typeof clause !== "object" || Array.isArray(clause)) return undefined;
    const branch = shared ? { $and: [shared, clause as Document] } : (clause as Document);
    const plan = planBranch(collection, branch, collated);
    if (!plan) return undefined;
    plans.push(plan);
  }
  return plans;
}

function planBranch(
  collection: StoredCollection,
  branch: Document,
  collated: boolean,
): BranchPlan | undefined {
  const scan = planIndexScan(collection, branch, undefined, collated);
  if (scan) return { scan };
  const lookup = planLookup(collection, branch, collated);
  return lookup && { lookup };
}
