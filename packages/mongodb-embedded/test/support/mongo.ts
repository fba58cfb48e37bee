// This package's tests get their MongoDB from its `./testing` entry (src/testing.ts), as the
// sidecar's tests do.
import type { MongoClient } from "mongodb";

export * from "../../src/testing.js";

/** Runs `run` with the server parameter `name` set to `value` (setParameter), then sets it back. */
export async function withParameter<T>(
  client: MongoClient,
  name: string,
  value: number,
  run: () => Promise<T>,
): Promise<T> {
  const admin = client.db("admin");
  const { was } = await admin.command({ setParameter: 1, [name]: value });
  try {
    return await run();
  } finally {
    await admin.command({ setParameter: 1, [name]: was });
  }
}
