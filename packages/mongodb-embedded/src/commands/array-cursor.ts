// A cursor over results computed up front (find, aggregate, listCollections, listIndexes).
// Stored documents are immutable, so holding them costs no copy, and their sizes, which a
// batch is cut by, are known once an insert or update measured them.
import type { Document } from "bson";
import type { CursorBatch, NextBatchOptions, ServerCursor } from "../cursor.js";
import { bsonSize } from "../query/bson-size.js";
import {
  batchElementBytes,
  MAX_BATCH_BYTES,
  MAX_INTERNAL_BSON_BYTES,
  objectTooLarge,
} from "../reply-limit.js";

/** mongod stops filling a batch once it passes 16 MiB. */

export class ArrayCursor implements ServerCursor {
  private position = 0;

  constructor(
    readonly ns: string,
    private documents: Document[],
  ) {}

  nextBatch(options: NextBatchOptions): Promise<CursorBatch> {
    return Promise.resolve(this.takeBatch(options.batchSize));
  }

  takeBatch(batchSize: number | undefined): CursorBatch {
    const limit = batchSize === undefined || batchSize <= 0 ? Infinity : batchSize;
    const batch: Document[] = [];
    let bytes = 0;
    while (this.position < this.documents.length && batch.length < limit) {
      const doc = this.documents[this.position]!;
      const size = bsonSize(doc);
      // A result mongod could not serialize (a $group's or $lookup's) fails the batch carrying it.
      if (size > MAX_INTERNAL_BSON_BYTES) throw objectTooLarge(size, doc);
      bytes += batchElementBytes(batch.length, size);
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(doc);
      this.position += 1;
    }
    return { documents: batch, exhausted: this.position >= this.documents.length };
  }

  close(): void {
    this.documents = [];
    this.position = 0;
  }
}
