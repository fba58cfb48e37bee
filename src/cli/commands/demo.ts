// `mongo-pattern-sidecar demo`: on a throw-away embedded server, load the seeds' example
// documents, push them past their thresholds the way a naive application would, and show
// the documents before and after the sidecar has put them back into shape: first by the
// sweep of its first start, then from the change stream while the application goes on.
// It uses the seeds' default rules whatever the configuration says: the data is the seeds'.
import type { Db } from "mongodb";
import { MongoClient } from "mongodb";
import { configSchema, type Config } from "../../config/schema.js";
import type { Logger } from "../../ops/logger.js";
import { createMetrics } from "../../ops/metrics.js";
import { startEmbeddedMongo } from "../embedded-server.js";
import { createShutdownStack } from "../../ops/shutdown.js";
import { Runner } from "../../stream/runner.js";
import { waitUntil } from "../wait-until.js";
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

async function printOnceInShape(db: Db, rounds: number): Promise<void> {
  const summary = await waitUntil(
    async () => {
      const current = await summarize(db, rounds);
      return current.inShape ? current : undefined;
    },
    { timeoutMs: 30_000, description: "every example to be back in shape" },
  );
  print(summary.text);
}

export async function demoCommand(logger: Logger): Promise<number> {
  const shutdown = createShutdownStack(({ name, error }) =>
    logger.error({ err: error, resource: name }, "cleanup failed"),
  );
  try {
    const server = await startEmbeddedMongo({ host: "127.0.0.1", port: 0 });
    shutdown.defer("embedded server", () => server.close());
    const client = new MongoClient(server.uri);
    shutdown.defer("client", () => client.close());
    const db = client.db("demo");
    const config = configSchema.parse({ database: "demo", mongodbUri: server.uri }) as Config;

    print("Loading the seeds' example documents (sales, trades, products) into an in-memory server.");
    await loadSeedExamples(db);
    print("\nA naive application pushes everything into the source documents:");
    await pushPastThresholds(db, 0);
    print((await summarize(db, 1)).text);

    print("\nThe sidecar starts; with no resume token yet, it sweeps, each correction in one transaction:");
    const runner = await startSidecar(db, client, config, logger);
    shutdown.defer("sidecar", () => runner.stop());
    await printOnceInShape(db, 1);

    print("\nThe application goes on pushing naively; the sidecar corrects from the change stream:");
    await pushPastThresholds(db, 1);
    await printOnceInShape(db, 2);
    return 0;
  } finally {
    await shutdown.close();
  }
}
