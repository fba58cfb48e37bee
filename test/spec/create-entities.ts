// createEntities: clients (with command monitoring), databases, collections and sessions, built
// in the file's order so each refers only to entities defined before it.
import { MongoClient, type Document } from "mongodb";
import { CommandEventRecorder } from "./command-events.js";
import { driverOptions, plainNumber, readPreferenceFrom, writeConcernFrom } from "./driver-options.js";
import type { EntityMap } from "./entity-map.js";
import { UnsupportedFeature } from "./outcomes.js";
import type { EntityDescription } from "./test-file-types.js";

export async function createEntities(
  descriptions: EntityDescription[],
  entities: EntityMap,
  uri: string,
): Promise<void> {
  for (const description of descriptions) {
    const [kind, ...others] = Object.keys(description);
    if (!kind || others.length > 0)
      throw new Error(`an entity needs exactly one type key: ${Object.keys(description).join(",")}`);
    const spec = description[kind]!;
    const name = String(spec.id);
    if (kind === "client") entities.add(name, createClient(spec, uri));
    else if (kind === "database") entities.add(name, createDatabase(spec, entities));
    else if (kind === "collection") entities.add(name, createCollection(spec, entities));
    else if (kind === "session") entities.add(name, createSession(spec, entities));
    else throw new UnsupportedFeature(`${kind} entities`);
  }
}

const unsupportedClientFields = [
  "observeLogMessages",
  "observeTracingMessages",
  "autoEncryptOpts",
  "awaitMinPoolSizeMS",
  "storeEventsAsEntities",
  "observeSensitiveCommands",
];

function createClient(spec: Document, uri: string) {
  const unsupported = unsupportedClientFields.find((field) => spec[field] !== undefined);
  if (unsupported) throw new UnsupportedFeature(`client ${unsupported}`);
  // useMultipleMongoses only matters on sharded and load-balanced deployments; we are a replica set.
  const uriOptions = Object.fromEntries(
    Object.entries((spec.uriOptions as Document | undefined) ?? {}).map(([key, value]) => [
      key,
      plainNumber(value),
    ]),
  );
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000,
    ...uriOptions,
    ...(spec.serverApi ? { serverApi: spec.serverApi as Document } : {}),
    monitorCommands: true,
  } as Document);
  const events = new CommandEventRecorder(
    client,
    (spec.observeEvents as string[] | undefined) ?? [],
    (spec.ignoreCommandMonitoringEvents as string[] | undefined) ?? [],
  );
  return { kind: "client" as const, client, events };
}

function collectionOrDatabaseOptions(options: Document | undefined): Document {
  if (!options) return {};
  const converted: Document = {};
  if (options.readConcern) converted.readConcern = options.readConcern;
  if (options.readPreference)
    converted.readPreference = readPreferenceFrom(options.readPreference as Document);
  if (options.writeConcern) converted.writeConcern = writeConcernFrom(options.writeConcern as Document);
  if (options.timeoutMS !== undefined) converted.timeoutMS = plainNumber(options.timeoutMS);
  return converted;
}

function createDatabase(spec: Document, entities: EntityMap) {
  const { client } = entities.get(String(spec.client), "client");
  const options = collectionOrDatabaseOptions(spec.databaseOptions as Document | undefined);
  return { kind: "database" as const, database: client.db(String(spec.databaseName), options) };
}

function createCollection(spec: Document, entities: EntityMap) {
  const { database } = entities.get(String(spec.database), "database");
  const options = collectionOrDatabaseOptions(spec.collectionOptions as Document | undefined);
  return {
    kind: "collection" as const,
    collection: database.collection(String(spec.collectionName), options),
  };
}

function createSession(spec: Document, entities: EntityMap) {
  const clientName = String(spec.client);
  const { client } = entities.get(clientName, "client");
  const options = { ...((spec.sessionOptions as Document | undefined) ?? {}) };
  if (options.defaultTransactionOptions) {
    options.defaultTransactionOptions = driverOptions(options.defaultTransactionOptions as Document);
  }
  if (options.snapshotTime !== undefined) throw new UnsupportedFeature("sessionOptions.snapshotTime");
  const session = client.startSession(options);
  // The lsid is read now: $$sessionLsid must still resolve after the session has ended.
  const lsid = session.id;
  if (!lsid) throw new Error(`session ${String(spec.id)} has no logical session id`);
  return { kind: "session" as const, session, lsid, clientName };
}
