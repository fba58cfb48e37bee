// Documents in a field order of the test's choosing, and what the server holds as raw bytes:
// how tests see that what a correction moves is the bytes the application wrote (field order
// included; docs/semantics.md, "Field order").
import { BSON, type Db, type Document } from "mongodb";

/** A document whose fields are in the order given, whatever their names (js-bson writes a Map so). */
export const ordered = (...fields: [string, unknown][]): Document => new Map(fields) as unknown as Document;

const fieldsOf = (doc: Document): [string, unknown][] => [...(doc as unknown as Map<string, unknown>)];

/** `doc` (made by `ordered`) with `_id` first. */
export const withId = (id: unknown, doc: Document): Document => ordered(["_id", id], ...fieldsOf(doc));

/** `doc` without the fields named, the others in their order. */
export function orderedWithout(doc: Document, ...names: string[]): Document {
  return ordered(...fieldsOf(doc).filter(([name]) => !names.includes(name)));
}

export const bytesOf = (doc: Document): Buffer => Buffer.from(BSON.serialize(doc));

export const asBytes = (value: unknown): Buffer => Buffer.from(value as Uint8Array);

/** Raw documents of `name` matching `filter`, sorted; each embedded document as its bytes. */
export async function rawDocuments(
  db: Db,
  name: string,
  filter: Document,
  sort: Document,
): Promise<Document[]> {
  const found = await db.collection(name).find(filter, { raw: true }).sort(sort).toArray();
  return found.map((doc) => BSON.deserialize(doc as unknown as Uint8Array, { raw: true }));
}

export async function insertOrdered(db: Db, name: string, ...docs: Document[]): Promise<void> {
  // A command, not insertOne: the driver would give a Map a generated _id of its own.
  await db.command({ insert: name, documents: docs });
}
