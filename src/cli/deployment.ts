// Which MongoDB the sidecar talks to: MONGODB_URI (its path names the database), or, when
// it is unset, the embedded in-memory server, which keeps nothing after the process exits.
import { MongoClient, type Db } from "mongodb";
import type { Config } from "../config/schema.js";
import { redactUriPasswords } from "../config/mongodb-uri.js";
import type { Logger } from "../ops/logger.js";
import type { ShutdownStack } from "../ops/shutdown.js";
import { startEmbeddedMongo } from "./embedded-server.js";

export interface Deployment {
  client: MongoClient;
  db: Db;
}

export async function connectDeployment(
  config: Config,
  logger: Logger,
  shutdown: ShutdownStack,
): Promise<Deployment> {
  // loadConfig has folded MONGODB_URI into mongodbUri, and the URI's path into database.
  let uri = config.mongodbUri;
  if (!uri) {
    const server = await startEmbeddedMongo({ host: "127.0.0.1", port: 0 });
    shutdown.defer("embedded server", () => server.close());
    uri = server.uri;
    logger.warn(
      { deployment: server.uri },
      "MONGODB_URI is not set: using an EMBEDDED IN-MEMORY server. NOTHING IS PERSISTED; every document is lost on exit.",
    );
  }
  const client = new MongoClient(uri, { appName: "mongo-pattern-sidecar" });
  shutdown.defer("mongodb client", () => client.close());
  await client.connect();
  logger.info({ deployment: redactUriPasswords(uri), database: config.database }, "connected");
  return { client, db: client.db(config.database) };
}
