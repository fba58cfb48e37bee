// Pre-images that expire, as mongod expires them (setClusterParameter
// changeStreamOptions.preAndPostImages.expireAfterSeconds), for tests of events without one,
// and a sidecar to stop while they do.
import type {
  ChangeStreamDocument,
  ClientSession,
  Collection,
  Document,
  MongoClient,
  Timestamp,
} from "mongodb";
import { setTimeout as sleep } from "node:timers/promises";
import { startSidecar, testConfig, waitForCaughtUp, type TestSidecar } from "./harness.js";
import { useTestDatabase, type TestDatabase } from "./mongo.js";

/** Sets how long pre-images are kept ("off": as long as the oplog keeps their writes). */
export function setPreImageExpiry(
  client: MongoClient,
  expireAfterSeconds: number | "off",
): Promise<Document> {
  return client
    .db("admin")
    .command({ setClusterParameter: { changeStreamOptions: { preAndPostImages: { expireAfterSeconds } } } });
}

/** Whether the `operationType` event of `id` after `from` still carries its pre-image. */
async function preImageKept(
  collection: Collection,
  operationType: "update" | "delete",
  from: Timestamp,
  id: unknown,
): Promise<boolean> {
  const stream = collection.watch<Document, ChangeStreamDocument>(
    [{ $match: { operationType, "documentKey._id": id } }],
    { startAtOperationTime: from, fullDocumentBeforeChange: "whenAvailable" },
  );
  try {
    const event = (await stream.next()) as { fullDocumentBeforeChange?: Document | null };
    return event.fullDocumentBeforeChange !== null;
  } finally {
    await stream.close();
  }
}

/** Expires pre-images after a second, and waits until that event of `id` after `from` has none. */
export async function expirePreImage(
  client: MongoClient,
  collection: Collection,
  operationType: "update" | "delete",
  from: Timestamp,
  id: unknown,
): Promise<void> {
  await setPreImageExpiry(client, 1);
  while (await preImageKept(collection, operationType, from, id)) await sleep(500);
}

export interface ExpiringPreImages extends TestDatabase {
  /** The running sidecar (startSidecar's, on testConfig). */
  sidecar: TestSidecar;
  /**
   * Once the sidecar caught up, stops it, makes `write` (in a session) to the document `id`
   * of `collection`, waits until its event has lost its pre-image, and starts a new sidecar.
   */
  writeUnseen(
    collection: string,
    operationType: "update" | "delete",
    id: unknown,
    write: (session: ClientSession) => Promise<unknown>,
  ): Promise<void>;
}

/** A fresh database with a sidecar, whose pre-image expiry is reset to "off" after the file. */
export function useSidecarWithExpiringPreImages(label: string): ExpiringPreImages {
  const fixture = {} as ExpiringPreImages;
  useTestDatabase(label, {
    setUp: async ({ mongo, db }) => {
      Object.assign(fixture, { mongo, db });
      fixture.sidecar = await startSidecar(mongo, testConfig(db.databaseName));
    },
    tearDown: async () => {
      await fixture.sidecar?.stop();
      await setPreImageExpiry(fixture.mongo.client, "off");
    },
  });
  fixture.writeUnseen = async (collection, operationType, id, write) => {
    await waitForCaughtUp(fixture.sidecar.runner);
    await fixture.sidecar.stop();
    const session = fixture.mongo.client.startSession();
    try {
      await write(session);
    } finally {
      await session.endSession();
    }
    const written = fixture.db.collection(collection);
    await expirePreImage(fixture.mongo.client, written, operationType, session.operationTime!, id);
    fixture.sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));
  };
  return fixture;
}
