// Change events over 16 MiB, through the official driver (embedded server or MONGODB_URI), as
// mongod 7.0 treats them: the limit applies after the user's stages, and
// $changeStreamSplitLargeEvent returns a large event as fragments ("Large Change Events").
import assert from "node:assert/strict";
import { test } from "node:test";
import { BSON, MongoServerError, type ChangeStreamOptions, type Collection, type Document } from "mongodb";
import { nextEvents, openStream, useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const freshDb = (label: string) => fixture.freshDb(label);
const T = { timeout: 60_000 };
const TEN_MIB = 10 * 1024 * 1024;
const SIXTEEN_MIB = 16 * 1024 * 1024;
const SPLIT = { $changeStreamSplitLargeEvent: {} };
const LOOKUP: ChangeStreamOptions = { fullDocument: "updateLookup" };

/** A collection holding `{ _id: 1, a: <10 MiB of "x"> }`. */
async function largeDocument(label: string): Promise<Collection> {
  const coll = freshDb(label).collection("books");
  await coll.insertOne({ _id: 1 as never, a: "x".repeat(TEN_MIB) });
  return coll;
}

/** An update whose event, with its looked-up fullDocument, holds 20 MiB: two 10 MiB strings. */
async function rewriteLargeField(coll: Collection): Promise<void> {
  await coll.updateOne({ _id: 1 as never }, { $set: { a: "y".repeat(TEN_MIB) } });
}

function isCode(code: number) {
  return (error: unknown) => error instanceof MongoServerError && error.code === code;
}

void test("an update event over 16 MiB is delivered when the user's $project makes it small", T, async () => {
  const coll = await largeDocument("large_project");
  const stream = await openStream(coll.watch([{ $project: { fullDocument: 0 } }], LOOKUP));
  try {
    await rewriteLargeField(coll);
    const [event] = await nextEvents(stream, 1);
    assert.equal(event!.operationType, "update");
    assert.equal("fullDocument" in event!, false);
    assert.equal((event!.updateDescription.updatedFields.a as string).length, TEN_MIB);
  } finally {
    await stream.close();
  }
});

void test(
  "without a $project, the getMore of an event over 16 MiB fails with BSONObjectTooLarge",
  T,
  async () => {
    const coll = await largeDocument("large_fails");
    const stream = await openStream(coll.watch([], LOOKUP));
    try {
      await rewriteLargeField(coll);
      await assert.rejects(stream.next(), isCode(10334));
    } finally {
      await stream.close();
    }
  },
);

void test("$changeStreamSplitLargeEvent anywhere but last fails the aggregate with 7182802", T, async () => {
  const coll = await largeDocument("split_not_last");
  const stream = coll.watch([SPLIT, { $match: { operationType: "update" } }]);
  try {
    await assert.rejects(stream.tryNext(), isCode(7182802));
  } finally {
    await stream.close();
  }
});

void test(
  "$changeStreamSplitLargeEvent with a non-empty spec fails the aggregate with 7182800",
  T,
  async () => {
    const coll = await largeDocument("split_spec");
    const stream = coll.watch([{ $changeStreamSplitLargeEvent: { maxSize: 1 } }]);
    try {
      await assert.rejects(stream.tryNext(), isCode(7182800));
    } finally {
      await stream.close();
    }
  },
);

void test(
  "an event over 16 MiB comes as fragments under the limit, each with splitEvent and a token",
  T,
  async () => {
    const coll = await largeDocument("split_fragments");
    const stream = await openStream(coll.watch([SPLIT], LOOKUP));
    try {
      await rewriteLargeField(coll);
      const fragments = await nextEvents(stream, 2);
      assert.deepEqual(
        fragments.map((fragment) => fragment.splitEvent as unknown),
        [
          { fragment: 1, of: 2 },
          { fragment: 2, of: 2 },
        ],
      );
      for (const fragment of fragments) assert.ok(BSON.calculateObjectSize(fragment) < SIXTEEN_MIB);
      assert.notDeepEqual(fragments[0]!._id, fragments[1]!._id);
      const whole = Object.assign({}, ...fragments) as Document;
      assert.equal(whole.operationType, "update");
      assert.equal(whole.fullDocument.a, "y".repeat(TEN_MIB));
      assert.equal(whole.updateDescription.updatedFields.a, "y".repeat(TEN_MIB));
    } finally {
      await stream.close();
    }
  },
);

void test("an event that fits is returned whole by a splitting stream, without splitEvent", T, async () => {
  const coll = await largeDocument("split_fits");
  const stream = await openStream(coll.watch([SPLIT], LOOKUP));
  try {
    await coll.updateOne({ _id: 1 as never }, { $set: { b: 1 } });
    const [event] = await nextEvents(stream, 1);
    assert.equal("splitEvent" in event!, false);
    assert.deepEqual(event!.updateDescription.updatedFields, { b: 1 });
    assert.equal((event!.fullDocument.a as string).length, TEN_MIB);
  } finally {
    await stream.close();
  }
});

void test("resuming after a fragment's token continues with the next fragment", T, async () => {
  const coll = await largeDocument("split_resume");
  const stream = await openStream(coll.watch([SPLIT], LOOKUP));
  let first: Document;
  try {
    await rewriteLargeField(coll);
    [first] = (await nextEvents(stream, 1)) as [Document];
  } finally {
    await stream.close();
  }
  const resumed = coll.watch([SPLIT], { ...LOOKUP, resumeAfter: first._id });
  try {
    const [next] = await nextEvents(resumed, 1);
    assert.deepEqual(next!.splitEvent, { fragment: 2, of: 2 });
    assert.deepEqual(Object.keys({ ...first, ...next }).sort(), [
      "_id",
      "clusterTime",
      "documentKey",
      "fullDocument",
      "ns",
      "operationType",
      "splitEvent",
      "updateDescription",
      "wallTime",
    ]);
  } finally {
    await resumed.close();
  }
});

void test("a fragment's token cannot resume a stream without the split stage", T, async () => {
  const coll = await largeDocument("split_resume_unsplit");
  const stream = await openStream(coll.watch([SPLIT], LOOKUP));
  let first: Document;
  try {
    await rewriteLargeField(coll);
    [first] = (await nextEvents(stream, 1)) as [Document];
  } finally {
    await stream.close();
  }
  const resumed = coll.watch([], { ...LOOKUP, resumeAfter: first._id });
  try {
    await assert.rejects(resumed.tryNext(), isCode(280));
  } finally {
    await resumed.close();
  }
});

void test(
  "an event whose one field exceeds the limit cannot be split and fails with 7182500",
  T,
  async () => {
    const coll = await largeDocument("split_too_large");
    const both = { $addFields: { both: ["$fullDocument", "$updateDescription"] } };
    const stream = await openStream(coll.watch([both, SPLIT], LOOKUP));
    try {
      await rewriteLargeField(coll);
      await assert.rejects(stream.next(), isCode(7182500));
    } finally {
      await stream.close();
    }
  },
);

void test(
  "thousands of events near 16 MiB in all come in batches whose replies fit, none lost",
  T,
  async () => {
    const coll = freshDb("many_events").collection("notes");
    const stream = coll.watch([], { batchSize: 100_000 });
    await stream.tryNext();
    const count = 2600;
    const text = "n".repeat(6500);
    await coll.insertMany(Array.from({ length: count }, (_, i) => ({ _id: i as never, text })));
    let seen = 0;
    try {
      while (seen < count) if (await stream.tryNext()) seen++;
    } finally {
      await stream.close();
    }
    assert.equal(seen, count);
  },
);
