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
import { loadManifests, manifestsOfKind } from "./manifests.js";
import { privilegesTheSidecarNeeds, unmapped } from "./sidecar-commands.js";

interface Privilege {
  resource: { db: string; collection: string };
  actions: string[];
}

/** Everything the sidecar needs, and nothing that drops or changes users. */
const ALLOWED_ACTIONS = new Set([
  "find",
  "changeStream",
  "listCollections",
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

function configMapRaw(): Record<string, unknown> {
  const [configMap] = manifestsOfKind<{ data: Record<string, string> }>(loadManifests(), "ConfigMap");
  return parseYaml(configMap!.data["config.yaml"]!) as Record<string, unknown>;
}

function configMapConfig(): Config {
  return configSchema.parse(configMapRaw()) as Config;
}

function actionsOn(privileges: Privilege[], collection: string): Set<string> {
  const matching = privileges.filter(
    (p) => p.resource.collection === collection || p.resource.collection === "",
  );
  return new Set(matching.flatMap((p) => p.actions));
}

const role = createdRole();
const config = configMapConfig();

/** A privilege list as collection -> sorted actions, the database-wide one under "". */
function byCollection(privileges: Iterable<[string, Iterable<string>]>): Record<string, string[]> {
  return Object.fromEntries(
    [...privileges].map(([collection, actions]) => [collection, [...actions].sort()]),
  );
}

// What the sidecar needs is what it sends: the commands of a run through every kind of
// correction, recorded by the driver's command monitoring, mapped to privilege actions.
const needed = await privilegesTheSidecarNeeds(
  (database) => configSchema.parse({ ...configMapRaw(), database }) as Config,
);

void test("the sidecar sent no command the role test cannot map to privileges", () => {
  assert.deepEqual(unmapped, []);
});

void test("the role grants on each collection exactly the write actions the sidecar's commands need", () => {
  const READS = new Set(["find", "changeStream"]);
  const writes = [...needed]
    .filter(([collection]) => collection !== "")
    .map(([collection, actions]): [string, string[]] => [
      collection,
      [...actions].filter((a) => !READS.has(a)),
    ]);
  const granted = role.privileges
    .filter((p) => p.resource.collection !== "")
    .map((p): [string, string[]] => [p.resource.collection, p.actions]);
  assert.deepEqual(byCollection(granted), byCollection(writes));
});

void test("the role grants on the whole database exactly the reads, watch and listing the sidecar needs", () => {
  const databaseWide = role.privileges.find((p) => p.resource.collection === "");
  assert.deepEqual(databaseWide?.resource, { db: "shop", collection: "" });
  const reads = new Set(
    [...needed].flatMap(([, actions]) => [...actions].filter((a) => a === "find" || a === "changeStream")),
  );
  const wanted = new Set([...(needed.get("") ?? []), ...reads]);
  assert.deepEqual([...(databaseWide?.actions ?? [])].sort(), [...wanted].sort());
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

void test("the role grants nothing beyond reading, watching, listing, inserting, updating, creating, deletes and collMod", () => {
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
