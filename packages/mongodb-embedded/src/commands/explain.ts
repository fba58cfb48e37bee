// explain of find and aggregate, at the verbosities queryPlanner and executionStats (also
// allPlansExecution, with no rejected plans to report). It runs the read as the command
// would and reports its plan and counts in mongod's layout, so that a test can prove, here
// and against a real mongod alike, what a query examines.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import type { ServerState } from "../server-state.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import { optionalDocument } from "./command-args.js";
import { executeFind } from "./find.js";
import { executeAggregateRead } from "./aggregate-read.js";
import { explainStages } from "./explain-stages.js";
import { executionStats, planStages, type ReadShape } from "./query-stages.js";
import type { QueryResult } from "../storage/read-view.js";

const VERBOSITIES = new Set(["queryPlanner", "executionStats", "allPlansExecution"]);

export const explain: CommandHandler = (request, server) => {
  const inner = optionalDocument(request.body, "explain");
  if (!inner)
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", "explain needs a command document");
  const verbosity = request.body.verbosity ?? "allPlansExecution";
  if (typeof verbosity !== "string" || !VERBOSITIES.has(verbosity))
    throw new ServerError(
      ErrorCode.FailedToParse,
      "FailedToParse",
      `verbosity string must be one of ${[...VERBOSITIES].join(", ")}`,
    );
  const name = Object.keys(inner)[0];
  const innerRequest: CommandRequest = { ...request, name: name ?? "", body: inner };
  if (name === "find") return explainFind(innerRequest, server, verbosity);
  if (name === "aggregate") return explainAggregate(innerRequest, server, verbosity);
  throw new ServerError(
    ErrorCode.NotImplemented,
    "NotImplemented",
    `explain of ${String(name)} is not supported by the embedded server`,
  );
};

async function explainFind(
  request: CommandRequest,
  server: ServerState,
  verbosity: string,
): Promise<Document> {
  const run = await executeFind(request, server);
  const shape: ReadShape = { ...run, nReturned: run.docs.length };
  return explainReply(request, server, run.query, shape, verbosity);
}

/** aggregate's `explain: true` (queryPlanner) and the explain command's. Stages the read does
 * not absorb are listed after a `$cursor` stage, as mongod lists them (with their execution
 * stats, explain-stages.ts, at executionStats and above). */
export async function explainAggregate(
  request: CommandRequest,
  server: ServerState,
  verbosity: string,
): Promise<Document> {
  const run = await executeAggregateRead(request, server);
  const shape: ReadShape = { ...run.read, nReturned: run.query?.found.length ?? 0 };
  const reply = explainReply(request, server, run.query, shape, verbosity);
  if (run.rest.length === 0) return reply;
  const { queryPlanner, executionStats: stats, ...others } = reply;
  const cursor = { queryPlanner, ...(stats ? { executionStats: stats } : {}) };
  const rest = stats ? explainStages(request, server, run.docs, run.rest) : run.rest;
  return { ...others, stages: [{ $cursor: cursor }, ...rest] };
}

function explainReply(
  request: CommandRequest,
  server: ServerState,
  query: QueryResult | undefined,
  shape: ReadShape,
  verbosity: string,
): Document {
  const collection = String(request.body.find ?? request.body.aggregate);
  const queryPlanner = {
    namespace: `${request.db}.${collection}`,
    indexFilterSet: false,
    parsedQuery: shape.filter,
    winningPlan: planStages(query, shape, false),
    rejectedPlans: [],
  };
  const reply: Document = { explainVersion: "1", queryPlanner };
  if (verbosity !== "queryPlanner")
    reply.executionStats = executionStats(query, planStages(query, shape, true), shape.nReturned);
  return {
    ...reply,
    command: request.body,
    serverInfo: { host: server.host, port: server.port, version: server.version.version },
    ok: 1,
  };
}
