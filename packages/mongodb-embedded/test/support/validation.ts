// What the tests of collection validators share: the server error a refused write rejects with.
import assert from "node:assert/strict";
import { MongoServerError } from "mongodb";

/** The error `write` rejects with, which must be the server's. */
export async function validationFailure(write: Promise<unknown>): Promise<MongoServerError> {
  const error = await write.then(
    () => assert.fail("the write should fail validation"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof MongoServerError, String(error));
  return error;
}
