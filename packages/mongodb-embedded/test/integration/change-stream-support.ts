// Helpers for the change-stream integration tests: open a stream for real (the driver sends
// its aggregate lazily) and read a known number of events.
import type { ChangeStream, Document } from "mongodb";

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
