// What connecting gives every command: handles whose reads go to the primary whatever the
// URI's read preference, since each read of the sidecar's decides a write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectDeployment } from "../../../src/cli/deployment.js";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { createLogger } from "../../../src/ops/logger.js";
import { createShutdownStack } from "../../../src/ops/shutdown.js";
import { useTestDatabase } from "../../support/mongo.js";

const fixture = useTestDatabase("deployment");

void test("a URI asking for secondaries still gives handles that read from the primary", async () => {
  const separator = fixture.mongo.uri.includes("?") ? "&" : "?";
  const mongodbUri = `${fixture.mongo.uri}${separator}readPreference=secondaryPreferred`;
  const config = configSchema.parse({ database: fixture.db.databaseName, mongodbUri }) as Config;
  const shutdown = createShutdownStack();
  try {
    const deployment = await connectDeployment(config, createLogger({ level: "silent" }), shutdown, {
      leaseClient: true,
    });
    shutdown.defer("clients", () => deployment.client.close());
    assert.equal(deployment.client.readPreference.mode, "secondaryPreferred", "the URI was read");
    assert.equal(deployment.db.readPreference.mode, "primary");
    assert.equal(deployment.leaseDb?.readPreference.mode, "primary");
    const read = await deployment.db.collection("sales").findOne({});
    assert.equal(read, null);
  } finally {
    await shutdown.close();
  }
});
