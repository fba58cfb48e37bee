// "Executing an Operation": run it, then hold its error or result against expectError,
// expectResult and saveResultAsEntity.
import { ChangeStream } from "mongodb";
import { describeValue } from "./bson-values.js";
import { expectedErrorDifference } from "./expected-error.js";
import { findDifference } from "./matcher.js";
import type { OperationContext } from "./operations/context.js";
import { runOperation } from "./operations/dispatch.js";
import { AssertionFailure, UnsupportedFeature, asError } from "./outcomes.js";
import type { Operation } from "./test-file-types.js";

// Operations whose result is an iterable of documents: each element is a root-level document.
const cursorOperations = new Set(["find", "aggregate", "listCollections", "listDatabases", "listIndexes"]);

/**
 * In a withTransaction callback (`inCallback`), an operation's error is rethrown after its
 * assertions, so that withTransaction sees it whatever expectError or ignoreResultAndError say.
 */
export async function executeOperation(operation: Operation, context: OperationContext, inCallback: boolean) {
  let result: unknown;
  let error: Error | undefined;
  try {
    result = await runOperation(operation, context);
  } catch (thrown) {
    if (thrown instanceof AssertionFailure || thrown instanceof UnsupportedFeature) throw thrown;
    error = asError(thrown);
  }
  const label = `${operation.name} on ${operation.object}`;
  if (operation.ignoreResultAndError) {
    if (error && inCallback) throw error;
    return;
  }
  if (operation.expectError) {
    if (!error) throw new AssertionFailure(`${label}: expected an error, got ${describeValue(result)}`);
    const difference = expectedErrorDifference(operation.expectError, error, context.entities);
    if (difference) throw new AssertionFailure(`${label}: ${difference}`);
    if (inCallback) throw error;
    return;
  }
  if (error) throw new AssertionFailure(`${label} failed: ${error.name}: ${error.message}`);
  if ("expectResult" in operation) {
    const difference = resultDifference(operation, result, context);
    if (difference) throw new AssertionFailure(`${label}: ${difference}`);
  }
  if (operation.saveResultAsEntity) saveResult(operation.saveResultAsEntity, result, context);
}

function resultDifference(
  operation: Operation,
  result: unknown,
  context: OperationContext,
): string | undefined {
  const expected = operation.expectResult;
  const options = { entities: context.entities, path: "result" };
  if (!cursorOperations.has(operation.name) || !Array.isArray(expected) || !Array.isArray(result)) {
    return findDifference(expected, result, { ...options, root: true });
  }
  if (expected.length !== result.length) {
    return `at result: expected ${expected.length} documents, got ${result.length}: ${describeValue(result)}`;
  }
  for (const [index, document] of expected.entries()) {
    const difference = findDifference(document, result[index], {
      ...options,
      root: true,
      path: `result[${index}]`,
    });
    if (difference) return difference;
  }
  return undefined;
}

function saveResult(name: string, result: unknown, context: OperationContext): void {
  if (result instanceof ChangeStream) context.entities.add(name, { kind: "changeStream", stream: result });
  else if (result !== undefined) context.entities.add(name, { kind: "value", value: result });
  else throw new Error(`saveResultAsEntity ${name}: the operation returned nothing`);
}
