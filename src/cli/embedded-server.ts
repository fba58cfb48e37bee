// The embedded in-memory server, loaded only when it is used: by `dev-server` and `demo`, and
// by `run`/`sweep` when no MONGODB_URI is configured. It is a development dependency of the
// sidecar, left out of the production image, so nothing else may import it.
// A type-only import: erased from the JavaScript (verbatimModuleSyntax), so nothing is loaded.
import type * as EmbeddedModule from "@pattern-sidecar/mongodb-embedded";
import { UsageError } from "../errors.js";

const PACKAGE = "@pattern-sidecar/mongodb-embedded";

export type EmbeddedServer = EmbeddedModule.EmbeddedServer;

async function loadEmbeddedModule(): Promise<typeof EmbeddedModule> {
  try {
    return await import("@pattern-sidecar/mongodb-embedded");
  } catch (error) {
    // Node names a missing package quoted ("Cannot find package '<name>'"); a missing file of
    // an installed one (an unbuilt dist/) by its path, which is another problem.
    const missing =
      error instanceof Error &&
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      error.message.includes(`'${PACKAGE}'`);
    if (!missing) throw error;
    throw new UsageError(
      `the embedded in-memory server (${PACKAGE}) is not installed: it is a development dependency, ` +
        "absent from production installs; set MONGODB_URI to connect to MongoDB",
      {},
      { cause: error },
    );
  }
}

/**
 * Starts the embedded server on a loopback port, as MongoDB 8.0 (the release the tests run
 * on: corrections write through bulkWrite); the caller owns closing it.
 */
export async function startEmbeddedMongo(
  options: Pick<
    EmbeddedModule.EmbeddedServerOptions,
    "host" | "port" | "transactionLifetimeLimitSeconds" | "secondaryLagMs"
  >,
): Promise<EmbeddedServer> {
  const { startEmbeddedServer } = await loadEmbeddedModule();
  return startEmbeddedServer({ ...options, serverVersion: "8.0" });
}
