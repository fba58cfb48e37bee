// Reads explain output the same way whether a real mongod (whose plans may nest under
// `queryPlan` or a `$cursor` stage) or this server wrote it.
import type { Document } from "mongodb";

export interface ExplainSummary {
  /** Every stage name of the winning plan, outermost first. */
  stages: string[];
  keysExamined: number;
  docsExamined: number;
  nReturned: number;
  /** The IXSCAN stage, if any. */
  ixscan?: Document;
}

export function summarizeExplain(explain: Document): ExplainSummary {
  const cursor = (explain.stages as Document[] | undefined)?.[0]?.$cursor as Document | undefined;
  const source = cursor ?? explain;
  const plan = (source.queryPlanner as Document).winningPlan as Document;
  const stats = source.executionStats as Document;
  const stages: Document[] = [];
  collectStages(plan.queryPlan ?? plan, stages);
  return {
    stages: stages.map((stage) => String(stage.stage)),
    keysExamined: Number(stats.totalKeysExamined),
    docsExamined: Number(stats.totalDocsExamined),
    nReturned: Number(stats.nReturned),
    ixscan: stages.find((stage) => stage.stage === "IXSCAN"),
  };
}

function collectStages(stage: Document | undefined, into: Document[]): void {
  if (!stage) return;
  into.push(stage);
  collectStages(stage.inputStage as Document | undefined, into);
  for (const input of (stage.inputStages as Document[] | undefined) ?? []) collectStages(input, into);
}

/** What an aggregate's $lookup stage examined (mongod 5.0+ reports it with executionStats). */
export interface LookupExplain {
  keysExamined: number;
  docsExamined: number;
  collectionScans: number;
  indexesUsed: string[];
  nReturned: number;
}

export function summarizeLookup(explain: Document): LookupExplain {
  const stage = (explain.stages as Document[] | undefined)?.find((s) => "$lookup" in s);
  if (!stage) throw new Error(`no $lookup stage in the explain output: ${JSON.stringify(explain)}`);
  return {
    keysExamined: Number(stage.totalKeysExamined),
    docsExamined: Number(stage.totalDocsExamined),
    collectionScans: Number(stage.collectionScans),
    indexesUsed: (stage.indexesUsed as string[]).slice().sort(),
    nReturned: Number(stage.nReturned),
  };
}
