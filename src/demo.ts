// `mongo-pattern-sidecar demo`: on a throw-away embedded server, load the seeds' example
// documents, push them past their thresholds the way a naive application would, and show
// the documents before and after the sidecar has put them back into shape.
import type { Db } from "mongodb";
import { MongoClient } from "mongodb";
import type { Config } from "./config.js";
import type { Logger } from "./logger.js";
import { createMetrics } from "./metrics.js";
import { startEmbeddedServer } from "./server/index.js";
import { createShutdownStack } from "./shutdown.js";
import { Runner } from "./stream/runner.js";
import { waitUntil } from "./wait-until.js";
import { loadSeedExamples, pushPastThresholds, summarize } from "./demo-data.js";

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function startSidecar(db: Db, client: MongoClient, config: Config, logger: Logger): Promise<Runner> {
  const runner = new Runner({ client, db, config, metrics: createMetrics(), logger, maxAwaitTimeMS: 200 });
  runner.start();
  await waitUntil(() => runner.status().state === "streaming" && runner.status().caughtUp, {
    description: "the sidecar to start streaming",
  });
  return runner;
}

export async function runDemo(baseConfig: Config, logger: Logger): Promise<number> {
  const shutdown = createShutdownStack(({ name, error }) =>
    logger.error({ err: error, resource: name }, "cleanup failed"),
  );
  try {
    const server = await startEmbeddedServer({ host: "127.0.0.1", port: 0 });
    shutdown.defer("embedded server", () => server.close());
    const client = new MongoClient(server.uri);
    shutdown.defer("client", () => client.close());
    const db = client.db("demo");
    const config: Config = { ...baseConfig, database: "demo", mongodbUri: server.uri };

    print("Loading the seeds' example documents (sales, trades, products) into an in-memory server.");
    await loadSeedExamples(db);
    const runner = await startSidecar(db, client, config, logger);
    shutdown.defer("sidecar", () => runner.stop());

    print("\nA naive application pushes everything into the source documents:");
    await pushPastThresholds(db);
    print((await summarize(db)).text);

    print("\nThe sidecar corrects them, each correction in one transaction:");
    const after = await waitUntil(
      async () => {
        const summary = await summarize(db);
        return summary.inShape ? summary : undefined;
      },
      { timeoutMs: 30_000, description: "every example to be back in shape" },
    );
    print(after.text);
    return 0;
  } finally {
    await shutdown.close();
  }
}
