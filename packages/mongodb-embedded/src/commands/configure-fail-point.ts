// configureFailPoint, the test command (enableTestCommands) that arms a fail point and answers
// with the times it was entered so far, and waitForFailPoint, which waits until it has been
// entered a given number of times in all (mongod requires maxTimeMS on it).
import { ServerError, ErrorCode } from "../errors.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";

function assertAdmin(request: CommandRequest): void {
  if (request.db !== "admin") {
    throw new ServerError(13, "Unauthorized", `${request.name} may only be run against the admin database.`);
  }
}

export const configureFailPoint: CommandHandler = (request, server) => {
  assertAdmin(request);
  const { body } = request;
  const count = server.failPoints.configure(body.configureFailPoint, body.mode, body.data);
  return { count, ok: 1 };
};

export const waitForFailPoint: CommandHandler = async (request, server) => {
  assertAdmin(request);
  const { body } = request;
  if (body.maxTimeMS === undefined)
    throw new ServerError(ErrorCode.FailedToParse, "FailedToParse", "Missing maxTimeMS");
  const times = Number(body.timesEntered);
  if (!Number.isInteger(times)) {
    throw new ServerError(
      ErrorCode.FailedToParse,
      "FailedToParse",
      "waitForFailPoint requires timesEntered, an integer",
    );
  }
  const entered = server.failPoints.entered(body.waitForFailPoint, times);
  const maxTimeMS = Number(body.maxTimeMS);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((resolve) => {
    if (maxTimeMS > 0) timer = setTimeout(() => resolve("expired"), maxTimeMS);
  });
  try {
    if ((await Promise.race([entered, expired])) === "expired") {
      throw new ServerError(ErrorCode.MaxTimeMSExpired, "MaxTimeMSExpired", "operation exceeded time limit");
    }
  } finally {
    clearTimeout(timer);
  }
  return { ok: 1 };
};
