// The embedded server at scale: 200,000 documents loaded through the driver, then point
// lookups by _id, by an indexed field and by an unindexed one. Equality on _id and on an
// index's first field goes through the index (packages/mongodb-embedded/src/storage/
// candidate-keys.ts), so its cost should not grow with the collection; the unindexed lookup
// scans and should grow about linearly. Each kind is timed at 2,000 and at 200,000 documents to show both.
import { MongoClient, type Collection } from "mongodb";
import { startEmbeddedServer } from "@pattern-sidecar/mongodb-embedded";
import type { Benchmark } from "./benchmark.js";
import { gcExposed, heapUsedBytes, timeEachAsync, timeOnce, type Timing } from "./measure.js";
import { count, heading, mebibytes, ms, perSecond, printTable, ratio } from "./report.js";

const SMALL = 2_000;
const TOTAL = 200_000;
const INSERT_BATCH = 1_000;
const POINT_LOOKUPS = 2_000;
/** Scans at 200,000 documents take ~0.1 s each; at 2,000 more calls steady the mean. */
const SCAN_LOOKUPS = { small: 200, big: 20 };
/** Untimed calls first, so that the first timed kind does not pay for JIT and pool warm-up. */
const WARM_UP_LOOKUPS = 500;

interface Item {
  _id: number;
  sku: string;
  plainSku: string;
  title: string;
  price: number;
  tags: string[];
}

function item(n: number): Item {
  return {
    _id: n,
    sku: `sku-${n}`,
    plainSku: `plain-${n}`,
    title: `Item number ${n}`,
    price: n % 997,
    tags: ["bench", `group-${n % 50}`],
  };
}

/** A spread of positions over [0, size): 7,919 is prime, so `k` runs through distinct ones. */
function position(k: number, size: number): number {
  return (k * 7_919 + 13) % size;
}

async function load(items: Collection<Item>, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += INSERT_BATCH) {
    const batch = Array.from({ length: Math.min(INSERT_BATCH, to - start) }, (_, i) => item(start + i));
    await items.insertMany(batch, { ordered: true });
  }
}

type Lookup = "_id" | "sku" | "plainSku";

async function timeLookups(items: Collection<Item>, field: Lookup, size: number, calls: number) {
  return timeEachAsync(calls, async (k) => {
    const n = position(k, size);
    const expected = item(n)[field];
    const found = await items.findOne({ [field]: expected });
    if (found?._id !== n) {
      throw new Error(`findOne({ ${field}: ${JSON.stringify(expected)} }) returned ${JSON.stringify(found)}`);
    }
  });
}

interface Round {
  size: number;
  byId: Timing;
  byIndexed: Timing;
  byScan: Timing;
}

async function lookupRound(items: Collection<Item>, size: number, scans: number): Promise<Round> {
  return {
    size,
    byId: await timeLookups(items, "_id", size, POINT_LOOKUPS),
    byIndexed: await timeLookups(items, "sku", size, POINT_LOOKUPS),
    byScan: await timeLookups(items, "plainSku", size, scans),
  };
}

async function warmUp(items: Collection<Item>, size: number, fields: readonly Lookup[]): Promise<void> {
  for (const field of fields) await timeLookups(items, field, size, WARM_UP_LOOKUPS);
}

function lookupRows(round: Round): string[][] {
  const row = (label: string, timing: Timing) => [
    label,
    count(round.size),
    count(timing.calls),
    ms(timing.meanMs),
    ms(timing.p50Ms),
    ms(timing.p99Ms),
  ];
  return [
    row("findOne({ _id })", round.byId),
    row("findOne({ sku }) indexed", round.byIndexed),
    row("findOne({ plainSku }) scan", round.byScan),
  ];
}

async function run(): Promise<string[]> {
  heading(`server lookups: ${count(TOTAL)} documents in the embedded server, through the driver`);
  const heapBefore = heapUsedBytes();
  const server = await startEmbeddedServer({ port: 0 });
  const client = new MongoClient(server.uri);
  try {
    await client.connect();
    const items = client.db("bench_lookups").collection<Item>("items");
    await items.createIndex({ sku: 1 });

    const smallLoad = await timeOnce(() => load(items, 0, SMALL));
    await warmUp(items, SMALL, ["_id", "sku", "plainSku"]);
    const small = await lookupRound(items, SMALL, SCAN_LOOKUPS.small);
    const bigLoad = await timeOnce(() => load(items, SMALL, TOTAL));
    const heapAfterLoad = heapUsedBytes();
    // Scans are warm from the small round, and 500 of them would take a minute here.
    await warmUp(items, TOTAL, ["_id", "sku"]);
    const big = await lookupRound(items, TOTAL, SCAN_LOOKUPS.big);
    const stored = await items.estimatedDocumentCount();
    if (stored !== TOTAL) throw new Error(`expected ${TOTAL} documents, the server holds ${stored}`);

    const loadMs = smallLoad.ms + bigLoad.ms;
    console.log(
      `loaded ${count(TOTAL)} documents with insertMany in batches of ${count(INSERT_BATCH)}: ` +
        `${ms(loadMs)} (${perSecond(TOTAL, loadMs)})`,
    );
    const heapGrowth = heapAfterLoad - heapBefore;
    console.log(
      `heap used after the load: ${mebibytes(heapAfterLoad)} (+${mebibytes(heapGrowth)} since before the ` +
        `server started, ~${count(heapGrowth / TOTAL)} bytes per document, change log included)` +
        (gcExposed() ? "" : " [no --expose-gc: includes uncollected garbage]"),
    );
    console.log("");
    printTable(
      ["lookup", "documents", "calls", "mean", "p50", "p99"],
      [...lookupRows(small), ...lookupRows(big)],
    );

    const growth = (pick: (round: Round) => Timing) => ratio(pick(big).meanMs, pick(small).meanMs);
    console.log("");
    printTable(
      ["ratio", "value"],
      [
        ["scan / indexed at 200,000 documents", ratio(big.byScan.meanMs, big.byIndexed.meanMs)],
        ["scan / _id at 200,000 documents", ratio(big.byScan.meanMs, big.byId.meanMs)],
        ["indexed / _id at 200,000 documents", ratio(big.byIndexed.meanMs, big.byId.meanMs)],
        ["_id lookup, 200,000 vs 2,000 documents", growth((round) => round.byId)],
        ["indexed lookup, 200,000 vs 2,000 documents", growth((round) => round.byIndexed)],
        ["scan, 200,000 vs 2,000 documents (100x the data)", growth((round) => round.byScan)],
      ],
    );
    return [
      `load: ${perSecond(TOTAL, loadMs)} inserted; heap after load ${mebibytes(heapAfterLoad)}`,
      `at ${count(TOTAL)} docs: _id ${ms(big.byId.meanMs)}, indexed ${ms(big.byIndexed.meanMs)}, ` +
        `scan ${ms(big.byScan.meanMs)} per lookup; scan/indexed ${ratio(big.byScan.meanMs, big.byIndexed.meanMs)}`,
      `growth from 2,000 to 200,000 docs: _id ${growth((round) => round.byId)}, ` +
        `indexed ${growth((round) => round.byIndexed)}, scan ${growth((round) => round.byScan)}`,
    ];
  } finally {
    await client.close();
    await server.close();
  }
}

export const serverLookups: Benchmark = {
  name: "server-lookups",
  description: "embedded server: 200,000 documents, lookups by _id, indexed field and scan",
  run,
};
