// deploy/mongodb-role.js grants what the sidecar does with the ConfigMap's rules, and nothing
// destructive. The script runs in a sandbox whose `db` records the createRole call: no
// server here has users and roles to run it against.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { parse as parseYaml } from "yaml";
import { configSchema, type Config } from "../../src/config/schema.js";
import type { BuiltInRule } from "../../src/patterns/registry.js";
import { watchedCollections } from "../../src/stream/targets.js";
import { loadManifests, manifestsOfKind } from "./manifests.js";

interface Privilege {
  resource: { db: string; collection: string };
  actions: string[];
}

/** Everything the sidecar needs, and nothing that drops or changes users. */
const ALLOWED_ACTIONS = new Set([
  "find",
  "changeStream",
  "insert",
  "update",
  "createCollection",
  "createIndex",
  "remove",
  "collMod",
]);

function createdRole(): { role: string; privileges: Privilege[] } {
  const calls: unknown[] = [];
  const db = { getName: () => "shop", createRole: (definition: unknown) => calls.push(definition) };
  runInNewContext(readFileSync(new URL("../../deploy/mongodb-role.js", import.meta.url), "utf8"), { db });
  assert.equal(calls.length, 1, "the script creates exactly one role");
  // Round-trip through JSON: the sandbox's arrays are not this realm's arrays.
  return JSON.parse(JSON.stringify(calls[0])) as { role: string; privileges: Privilege[] };
}

function configMapConfig(): Config {
  const [configMap] = manifestsOfKind<{ data: Record<string, string> }>(loadManifests(), "ConfigMap");
  return configSchema.parse(parseYaml(configMap!.data["config.yaml"]!)) as Config;
}

function actionsOn(privileges: Privilege[], collection: string): Set<string> {
  const matching = privileges.filter(
    (p) => p.resource.collection === collection || p.resource.collection === "",
  );
  return new Set(matching.flatMap((p) => p.actions));
}

const role = createdRole();
const config = configMapConfig();

void test("the role lets the sidecar watch the whole database", () => {
  const databaseWide = role.privileges.find((p) => p.resource.collection === "");
  assert.deepEqual(databaseWide?.resource, { db: "shop", collection: "" });
  assert.deepEqual([...(databaseWide?.actions ?? [])].sort(), ["changeStream", "find"]);
});

void test("the role lets the sidecar write every collection the ConfigMap's rules touch", () => {
  for (const collection of [...watchedCollections(config.rules), config.stateCollection]) {
    const actions = actionsOn(role.privileges, collection);
    for (const needed of ["find", "insert", "update", "createCollection"]) {
      assert.ok(actions.has(needed), `${needed} on ${collection}`);
    }
  }
});

void test("the role lets the sidecar create the indexes of the overflow and full-set collections", () => {
  for (const rule of config.rules as BuiltInRule[]) {
    if (rule.pattern === "outlier")
      assert.ok(actionsOn(role.privileges, rule.overflowCollection).has("createIndex"));
    if (rule.pattern === "subset")
      assert.ok(actionsOn(role.privileges, rule.fullSetCollection).has("createIndex"));
  }
});

function collectionsOf(
  pattern: BuiltInRule["pattern"],
  key: "collection" | "fullSetCollection" | "overflowCollection",
): string[] {
  return (config.rules as BuiltInRule[])
    .filter((rule) => rule.pattern === pattern)
    .map((rule) => (rule as unknown as Record<string, string>)[key]!);
}

void test("the role lets the sidecar delete only in bucket, overflow and full-set collections and its own state", () => {
  const bucketCollections = collectionsOf("bucket", "collection");
  for (const collection of bucketCollections) {
    const actions = actionsOn(role.privileges, collection);
    assert.ok(actions.has("remove") && actions.has("createIndex"), `remove and createIndex on ${collection}`);
  }
  const removable = role.privileges
    .filter((p) => p.actions.includes("remove"))
    .map((p) => p.resource.collection);
  assert.deepEqual(
    removable.sort(),
    [
      ...bucketCollections,
      ...collectionsOf("outlier", "overflowCollection"),
      ...collectionsOf("subset", "fullSetCollection"),
      config.stateCollection,
    ].sort(),
  );
});

void test("the role lets the sidecar enable pre-images on the full-set collections, and index its state", () => {
  for (const collection of collectionsOf("subset", "fullSetCollection"))
    assert.ok(actionsOn(role.privileges, collection).has("collMod"), `collMod on ${collection}`);
  const collModded = role.privileges
    .filter((p) => p.actions.includes("collMod"))
    .map((p) => p.resource.collection);
  assert.deepEqual(collModded.sort(), collectionsOf("subset", "fullSetCollection").sort());
  assert.ok(actionsOn(role.privileges, config.stateCollection).has("createIndex"));
});

void test("the role grants nothing beyond reading, watching, inserting, updating, creating, deletes and collMod", () => {
  const granted = new Set(role.privileges.flatMap((p) => p.actions));
  assert.deepEqual(
    [...granted].filter((action) => !ALLOWED_ACTIONS.has(action)),
    [],
  );
  assert.ok(
    role.privileges.every((p) => p.resource.db === "shop"),
    "every privilege stays in the database",
  );
});
