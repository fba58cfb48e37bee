import { test } from "node:test";
import assert from "node:assert/strict";
import { unmetRequirements, type ServerFacts } from "../../spec/requirements.js";
import { schemaVersionProblem } from "../../spec/schema-version.js";

function facts(parameters: Record<string, unknown> = {}): ServerFacts {
  return {
    version: [7, 0, 0],
    topology: "replicaset",
    auth: false,
    serverless: false,
    csfle: false,
    authMechanisms: [],
    serverParameter: (name) => Promise.resolve(parameters[name]),
  };
}

void test("no requirements are always met", async () => {
  assert.equal(await unmetRequirements(undefined, facts()), undefined);
});

void test("a server of 7.0.0 meets minServerVersion 4.4 and maxServerVersion 7.0.99", async () => {
  assert.equal(
    await unmetRequirements([{ minServerVersion: "4.4", maxServerVersion: "7.0.99" }], facts()),
    undefined,
  );
});

void test("minServerVersion 8.0 is not met by 7.0.0, and the reason says so", async () => {
  assert.equal(
    await unmetRequirements([{ minServerVersion: "8.0" }], facts()),
    "minServerVersion 8.0 > server 7.0.0",
  );
});

void test("maxServerVersion 4.2.99 is not met by 7.0.0", async () => {
  assert.match(
    (await unmetRequirements([{ maxServerVersion: "4.2.99" }], facts())) ?? "",
    /maxServerVersion/,
  );
});

void test("one met requirement among several is enough", async () => {
  const requirements = [{ topologies: ["sharded"] }, { minServerVersion: "4.0", topologies: ["replicaset"] }];
  assert.equal(await unmetRequirements(requirements, facts()), undefined);
});

void test("a replica set does not meet a sharded-only requirement", async () => {
  assert.match(
    (await unmetRequirements([{ topologies: ["sharded", "load-balanced"] }], facts())) ?? "",
    /exclude replicaset/,
  );
});

void test("serverless forbid is met and require is not, since we are not serverless", async () => {
  assert.equal(await unmetRequirements([{ serverless: "forbid" }], facts()), undefined);
  assert.equal(await unmetRequirements([{ serverless: "require" }], facts()), "serverless required");
});

void test("auth true is not met by a server without authentication, auth false is", async () => {
  assert.equal(await unmetRequirements([{ auth: true }], facts()), "auth required");
  assert.equal(await unmetRequirements([{ auth: false }], facts()), undefined);
});

void test("csfle is not met without client-side encryption support", async () => {
  assert.equal(await unmetRequirements([{ csfle: true }], facts()), "csfle required");
  assert.equal(await unmetRequirements([{ csfle: false }], facts()), undefined);
});

void test("serverParameters compare numerically and fail when the server lacks the parameter", async () => {
  const server = facts({ enableTestCommands: 1.0 });
  assert.equal(await unmetRequirements([{ serverParameters: { enableTestCommands: 1 } }], server), undefined);
  assert.match(
    (await unmetRequirements([{ serverParameters: { featureFlagX: true } }], server)) ?? "",
    /serverParameters\.featureFlagX/,
  );
});

void test("schema versions up to the supported 1.21 run and newer ones are refused", () => {
  assert.equal(schemaVersionProblem("1.0"), undefined);
  assert.equal(schemaVersionProblem("1.21"), undefined);
  assert.match(schemaVersionProblem("1.22") ?? "", /newer than the supported 1.21/);
  assert.match(schemaVersionProblem("2.0") ?? "", /newer/);
});
