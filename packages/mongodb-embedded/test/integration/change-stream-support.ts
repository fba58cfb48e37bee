// Helpers for the change-stream integration tests: a deployment and fresh databases, open a
// stream for real (the driver sends its aggregate lazily) and read a known number of events.
import { after, before } from "node:test";
import type { ChangeStream, Db, Document } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

export interface FreshDatabases {
  /** The deployment, set by the file's `before` hook. */
  mongo: TestMongo;
  /** A database no other test uses, dropped after the file. */
  freshDb(label: string): Db;
}

/** Registers the file's hooks: one deployment, and the fresh databases the tests ask for. */
export function useFreshDatabases(): FreshDatabases {
  const databases: string[] = [];
  const fixture = {
    freshDb(label: string) {
      const name = uniqueDatabaseName(label);
      databases.push(name);
      return fixture.mongo.client.db(name);
    },
  } as FreshDatabases;
  before(async () => {
    fixture.mongo = await startTestMongo();
  });
  after(async () => {
    for (const name of databases) await fixture.mongo.client.db(name).dropDatabase();
    await fixture.mongo.close();
  });
  return fixture;
}

/** Sends the stream's aggregate, so that writes made after this call are seen. */
export async function openStream<T extends ChangeStream<Document, Document>>(stream: T): Promise<T> {
  const first = await stream.tryNext();
  if (first !== null)
    throw new Error(`a new change stream returned an event at once: ${JSON.stringify(first)}`);
  return stream;
}

export async function nextEvents(
  stream: ChangeStream<Document, Document>,
  count: number,
): Promise<Document[]> {
  const events: Document[] = [];
  while (events.length < count) events.push(await stream.next());
  return events;
}

export function operationTypes(events: Document[]): string[] {
  return events.map((event) => event.operationType as string);
}
