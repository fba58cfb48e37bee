// configureFailPoint, the test command (enableTestCommands) that arms failCommand.
import { ServerError } from "../errors.js";
import type { CommandHandler } from "./command-context.js";

export const configureFailPoint: CommandHandler = (request, server) => {
  if (request.db !== "admin") {
    throw new ServerError(
      13,
      "Unauthorized",
      "configureFailPoint may only be run against the admin database.",
    );
  }
  server.failPoints.configure(request.body.configureFailPoint, request.body.mode, request.body.data);
  return { ok: 1 };
};
