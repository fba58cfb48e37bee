// Change stream entities: created by createChangeStream with the server cursor already open,
// iterated one document at a time.
import type { ChangeStream } from "mongodb";
import type { OperationHandler } from "./context.js";

interface LazyCursorInternals {
  cursor: { cursorInit(): Promise<void> };
}

/**
 * createChangeStream must run the aggregate before the stream is saved, without iterating it. The
 * driver opens a change stream's cursor lazily, and its tryNext follows an empty first batch with
 * a getMore that tests do not expect, so the cursor is started through the driver's own cursorInit.
 */
export async function openChangeStream(stream: ChangeStream): Promise<ChangeStream> {
  try {
    await (stream as unknown as LazyCursorInternals).cursor.cursorInit();
  } catch (error) {
    await stream.close().catch(() => {});
    throw error;
  }
  return stream;
}

export const changeStreamOperations: Record<string, OperationHandler<ChangeStream>> = {
  iterateUntilDocumentOrError: { args: [], run: async (stream) => stream.next() },
  iterateOnce: { args: [], run: async (stream) => (await stream.tryNext()) ?? undefined },
  close: {
    args: [],
    // Errors of killCursors are not reported consistently by drivers; tests assert them through events.
    run: async (stream) => {
      await stream.close().catch(() => {});
      return undefined;
    },
  },
};
