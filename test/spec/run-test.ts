// "Executing a Test": requirements, initial data, entities, operations, then (with listeners and
// fail points off) events and outcome; everything opened is closed, even after a timeout.
import type { MongoClient } from "mongodb";
import { createEntities } from "./create-entities.js";
import { EntityMap } from "./entity-map.js";
import { executeOperation } from "./execute-operation.js";
import { expectedEventsDifference } from "./expected-events.js";
import type { OperationContext } from "./operations/context.js";
import { AssertionFailure, UnsupportedFeature, asError } from "./outcomes.js";
import { unmetRequirements, type ServerFacts } from "./requirements.js";
import { loadInitialData, outcomeDifference } from "./test-data.js";
import type { TestCase, TestFile } from "./test-file-types.js";

export type TestOutcome =
  { status: "pass" } | { status: "fail"; message: string } | { status: "skip"; reason: string };

export interface RunEnvironment {
  uri: string;
  internalClient: MongoClient;
  facts: ServerFacts;
  timeoutMs: number;
  warn(message: string): void;
}

export async function runTest(file: TestFile, test: TestCase, env: RunEnvironment): Promise<TestOutcome> {
  if (test.skipReason) return { status: "skip", reason: `skipReason: ${test.skipReason}` };
  const unmet = await unmetRequirements(test.runOnRequirements, env.facts);
  if (unmet) return { status: "skip", reason: `runOnRequirements: ${unmet}` };
  if (test.expectLogMessages) return { status: "skip", reason: "expectLogMessages is not implemented" };
  if (test.expectTracingMessages)
    return { status: "skip", reason: "expectTracingMessages is not implemented" };
  const context = newContext(env);
  const execution = executeTest(file, test, context, env);
  const outcome = await settleWithin(execution, env.timeoutMs, context.entities);
  await cleanUp(context, env, outcome);
  return outcome;
}

function newContext(env: RunEnvironment): OperationContext {
  const context: OperationContext = {
    entities: new EntityMap(),
    internalClient: env.internalClient,
    uri: env.uri,
    failPoints: [],
    startedTransaction: false,
    runCallbackOperations: async (operations) => {
      for (const operation of operations) await executeOperation(operation, context, true);
    },
  };
  return context;
}

async function executeTest(
  file: TestFile,
  test: TestCase,
  context: OperationContext,
  env: RunEnvironment,
): Promise<TestOutcome> {
  try {
    if (file.initialData) await loadInitialData(env.internalClient, file.initialData);
    await createEntities(file.createEntities ?? [], context.entities, env.uri);
    for (const operation of test.operations) await executeOperation(operation, context, false);
    stopListening(context);
    await disableFailPoints(context, env);
    const eventsDifference =
      test.expectEvents && expectedEventsDifference(test.expectEvents, context.entities);
    if (eventsDifference) return { status: "fail", message: eventsDifference };
    const dataDifference = test.outcome && (await outcomeDifference(env.internalClient, test.outcome));
    if (dataDifference) return { status: "fail", message: dataDifference };
    return { status: "pass" };
  } catch (thrown) {
    return outcomeOfError(thrown);
  }
}

export function outcomeOfError(thrown: unknown): TestOutcome {
  if (thrown instanceof UnsupportedFeature)
    return { status: "skip", reason: `not implemented: ${thrown.message}` };
  if (thrown instanceof AssertionFailure) return { status: "fail", message: thrown.message };
  const error = asError(thrown);
  return { status: "fail", message: `${error.name}: ${error.message}` };
}

/** The test's outcome, or a failure after `timeoutMs`; closing the entities then aborts what hangs. */
async function settleWithin(execution: Promise<TestOutcome>, timeoutMs: number, entities: EntityMap) {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = Symbol("timed out");
  const timeout = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), timeoutMs);
  });
  const outcome = await Promise.race([execution, timeout]);
  clearTimeout(timer);
  if (outcome !== timedOut) return outcome;
  await entities.close();
  await Promise.race([execution, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  return { status: "fail" as const, message: `timed out after ${timeoutMs / 1000} s` };
}

function stopListening(context: OperationContext): void {
  for (const [, entity] of context.entities.all()) if (entity.kind === "client") entity.events.stop();
}

async function disableFailPoints(context: OperationContext, env: RunEnvironment): Promise<void> {
  // One server (the primary) holds every fail point of a replica-set test, so the internal client reaches it.
  const names = context.failPoints.splice(0);
  for (const name of new Set(names)) {
    await env.internalClient.db("admin").command({ configureFailPoint: name, mode: "off" });
  }
}

async function cleanUp(context: OperationContext, env: RunEnvironment, outcome: TestOutcome): Promise<void> {
  stopListening(context);
  await disableFailPoints(context, env).catch((error: unknown) =>
    env.warn(`disabling fail points: ${String(error)}`),
  );
  await context.entities.close();
  if (context.startedTransaction || outcome.status === "fail") await killAllSessions(env);
}

/** "Terminating Open Transactions": an open transaction of a failed test must not block the next. */
async function killAllSessions(env: RunEnvironment): Promise<void> {
  try {
    await env.internalClient.db("admin").command({ killAllSessions: [] });
  } catch (error) {
    env.warn(`killAllSessions failed: ${asError(error).message}`);
  }
}
