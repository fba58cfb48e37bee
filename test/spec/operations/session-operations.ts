// Session entity operations: explicit transactions and the convenient withTransaction API, whose
// callback is a list of operations run by the interpreter itself.
import type { ClientSession, Document, TransactionOptions } from "mongodb";
import { driverOptions } from "../driver-options.js";
import type { Operation } from "../test-file-types.js";
import { withoutKeys, type OperationHandler } from "./context.js";

const transactionOptions = ["readConcern", "writeConcern", "readPreference", "maxCommitTimeMS"];

export const sessionOperations: Record<string, OperationHandler<ClientSession>> = {
  startTransaction: {
    args: transactionOptions,
    run: (session, a, context) => {
      context.startedTransaction = true;
      session.startTransaction(driverOptions(a) as TransactionOptions);
      return Promise.resolve(undefined);
    },
  },
  commitTransaction: {
    args: [],
    run: async (session) => resultOrNothing(await session.commitTransaction()),
  },
  abortTransaction: {
    args: [],
    run: async (session) => resultOrNothing(await session.abortTransaction()),
  },
  endSession: {
    args: [],
    run: async (session) => resultOrNothing(await session.endSession()),
  },
  withTransaction: {
    args: ["callback", ...transactionOptions],
    run: async (session, a, context) => {
      context.startedTransaction = true;
      const callback = a.callback as Operation[];
      const options = driverOptions(withoutKeys(a, "callback")) as TransactionOptions;
      await session.withTransaction(() => context.runCallbackOperations(callback), options);
      return undefined;
    },
  },
};

function resultOrNothing(value: Document | void): Document | undefined {
  return value ?? undefined;
}
