// mingo throws plain errors; the driver needs mongod's codes. Our own ServerErrors pass through.
import { ServerError } from "../errors.js";
import { queryError } from "./query-error.js";

export function withMingoErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ServerError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const undefinedVariable = /^Use of undefined variable: (\S+)$/.exec(message);
    if (undefinedVariable)
      throw new ServerError(17276, "Location17276", `Use of undefined variable: ${undefinedVariable[1]}`);
    const unknownStage = /unregistered pipeline operator (\$\w+)/.exec(message);
    if (unknownStage)
      throw queryError("Location40324", `Unrecognized pipeline stage name: '${unknownStage[1]}'`);
    throw queryError("BadValue", `invalid aggregation expression: ${message}`);
  }
}
