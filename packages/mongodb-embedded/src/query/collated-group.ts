// $group under a non-simple collation. mongod puts documents whose group keys are equal under
// the collation into one group, reported under the key of the first document seen. mingo
// groups by exact value, so we partition here and hand each partition to mingo's $group with
// its key fixed: the accumulators stay mingo's.
import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import { Lazy } from "mingo/lazy";
import * as pipelineOperators from "mingo/operators/pipeline";
import type { Options } from "mingo/types";
import { compareValues, type StringComparator } from "./bson-order.js";
import { queryError } from "./query-error.js";

export type Stream = ReturnType<typeof pipelineOperators.$match>;

interface Partition {
  readonly key: unknown;
  readonly members: Document[];
}

export function collatedGroup(
  collection: Stream,
  spec: Document,
  options: Options,
  strings: StringComparator,
): Stream {
  if (!("_id" in spec)) throw queryError("Location40324", "a group specification must include an _id");
  return collection.transform((docs) => {
    const keyOf = (doc: Document) => evalExpr(doc, spec._id, options) ?? null;
    const partitions = partitionByKey(docs as Document[], keyOf, strings);
    return Lazy(
      partitions.flatMap(({ key, members }) =>
        pipelineOperators
          .$group(Lazy(members), { ...spec, _id: { $literal: key } }, options)
          .collect<Document>(),
      ),
    );
  });
}

/** Partitions in first-seen order; keys are also kept in collation order, so that a binary
 * search finds a document's partition without comparing it with every key. */
function partitionByKey(
  docs: Document[],
  keyOf: (doc: Document) => unknown,
  strings: StringComparator,
): Partition[] {
  const byKey: Partition[] = [];
  const inOrder: Partition[] = [];
  for (const doc of docs) {
    const key = keyOf(doc);
    const { index, found } = searchKey(byKey, key, strings);
    if (found) {
      byKey[index]!.members.push(doc);
      continue;
    }
    const partition: Partition = { key, members: [doc] };
    byKey.splice(index, 0, partition);
    inOrder.push(partition);
  }
  return inOrder;
}

/** Where `key` is, or belongs, in partitions sorted by key. */
function searchKey(
  sorted: Partition[],
  key: unknown,
  strings: StringComparator,
): { index: number; found: boolean } {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const order = compareValues(sorted[middle]!.key, key, strings);
    if (order === 0) return { index: middle, found: true };
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return { index: low, found: false };
}
