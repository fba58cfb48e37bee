// Explains the exact reads a piece of code sends: its find and aggregate commands are
// recorded through the driver's command monitoring and replayed as `explain` with
// executionStats. The summary reads mongod's layouts (plans nested under `queryPlan` or a
// `$cursor` stage) as well as the embedded server's.
import type { CommandStartedEvent, Db, Document, MongoClient } from "mongodb";

export interface ExplainedRead {
  command: string;
  collection: string;
  /** Every stage of the winning plan, outermost first. */
  stages: string[];
  keysExamined: number;
  docsExamined: number;
  /** What each `$lookup` stage examined in its foreign collection (mongod reports them per stage). */
  lookups: LookupCost[];
}

export interface LookupCost {
  from: string;
  keysExamined: number;
  docsExamined: number;
  collectionScans: number;
}

/** Runs `read` against `client` (created with monitorCommands) and explains each of its reads. */
export async function explainReads(
  client: MongoClient,
  db: Db,
  read: () => Promise<unknown>,
): Promise<ExplainedRead[]> {
  const sent: Document[] = [];
  const record = (event: CommandStartedEvent) => {
    if (event.commandName === "find" || event.commandName === "aggregate") sent.push(event.command);
  };
  client.on("commandStarted", record);
  try {
    await read();
  } finally {
    client.off("commandStarted", record);
  }
  const explained: ExplainedRead[] = [];
  for (const command of sent) {
    const { lsid: _lsid, $db: _db, $clusterTime: _time, txnNumber: _txn, ...plain } = command;
    delete plain.readConcern;
    delete plain.autocommit;
    delete plain.startTransaction;
    const explain = await db.command({ explain: plain, verbosity: "executionStats" });
    explained.push(summarize(plain, explain));
  }
  return explained;
}

function summarize(command: Document, explain: Document): ExplainedRead {
  const cursor = (explain.stages as Document[] | undefined)?.[0]?.$cursor as Document | undefined;
  const source = cursor ?? explain;
  const plan = (source.queryPlanner as Document).winningPlan as Document;
  const stats = source.executionStats as Document;
  const name = Object.keys(command)[0]!;
  return {
    command: name,
    collection: String(command[name]),
    stages: stageNames((plan.queryPlan as Document | undefined) ?? plan),
    keysExamined: Number(stats.totalKeysExamined),
    docsExamined: Number(stats.totalDocsExamined),
    lookups: lookupCosts(explain),
  };
}

function lookupCosts(explain: Document): LookupCost[] {
  const stages = (explain.stages as Document[] | undefined) ?? [];
  return stages
    .filter((stage) => stage.$lookup !== undefined)
    .map((stage) => ({
      from: String((stage.$lookup as Document).from),
      keysExamined: Number(stage.totalKeysExamined),
      docsExamined: Number(stage.totalDocsExamined),
      collectionScans: Number(stage.collectionScans),
    }));
}

function stageNames(stage: Document | undefined): string[] {
  if (!stage) return [];
  const inputs = [stage.inputStage as Document | undefined, ...((stage.inputStages as Document[]) ?? [])];
  return [String(stage.stage), ...inputs.flatMap(stageNames)];
}
