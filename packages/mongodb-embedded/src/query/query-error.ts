// One way to raise the errors this module answers with, so that every code is paired with
// mongod's codeName for it (the driver classifies replies by both).
import { ErrorCode, ServerError } from "../errors.js";

export type QueryErrorName = keyof typeof ErrorCode;

export function queryError(name: QueryErrorName, message: string): ServerError {
  return new ServerError(ErrorCode[name], name, message);
}
