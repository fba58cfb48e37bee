// The pure planners on large documents, with the seeds' rules (src/config.ts defaults): how
// long one call takes when there is a lot to move, and that planning a document already in
// shape is cheap, which is what the sidecar does for most events it sees.
import type { Document } from "mongodb";
import { configSchema } from "../src/config/schema.js";
import type { BuiltInRule as Rule } from "../src/patterns/registry.js";
import type { BucketRule } from "../src/patterns/bucket/rule.js";
import type { OutlierRule } from "../src/patterns/outlier/rule.js";
import type { SubsetRule } from "../src/patterns/subset/rule.js";
import { planBucketSplit } from "../src/patterns/bucket/planner.js";
import { planOutlierMove, planOverflowChunkSplit } from "../src/patterns/outlier/planner.js";
import { lastChunkOf } from "../src/patterns/outlier/overflow-chunks.js";
import { planSubset } from "../src/patterns/subset/planner.js";
import type { Plan } from "../src/patterns/plan.js";
import type { Benchmark } from "./benchmark.js";
import { timeSyncFor, type Timing } from "./measure.js";
import { count, heading, ms, printTable, ratio } from "./report.js";

const PURCHASERS = 100_000;
const TRADES = 100_000;
const REVIEWS = 10_000;
/** Trades that all share one second (a bulk load): each new bucket's _id needs a suffix. */
const SAME_SECOND_TRADES = [5_000, 20_000];
const LARGE_BUDGET_MS = 1_000;
const SMALL_BUDGET_MS = 300;

function defaultRule<P extends Rule["pattern"]>(pattern: P): Extract<Rule, { pattern: P }> {
  const rule = (configSchema.parse({}).rules as Rule[]).find((candidate) => candidate.pattern === pattern);
  if (!rule) throw new Error(`no default ${pattern} rule`);
  return rule as Extract<Rule, { pattern: P }>;
}

interface Case {
  label: string;
  /** The outcome, kind, write count and elements moved the plan must have. */
  expected: { outcome: Plan["outcome"]; kind?: string; writes?: number; moved?: number };
  plan: () => Plan;
}

/** One pattern's cases: a large document, others worth timing, and one already in shape. */
interface PatternCases {
  pattern: Rule["pattern"];
  large: Case;
  more: Case[];
  inShape: Case;
}

function users(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `user${i}`);
}

function outlierCases(rule: OutlierRule): PatternCases {
  const source = { _id: 1, title: "The Wooden Amulet", customers_purchased: users(PURCHASERS) };
  const fullChunk = (entries: string[]) => ({
    _id: { book_id: 1, seq: 0 },
    book_id: 1,
    seq: 0,
    customers_purchased_extra: entries,
  });
  const overfilled = fullChunk(users(PURCHASERS));
  const inShape = { ...source, customers_purchased: users(rule.threshold), has_extras: true };
  const lastChunk = fullChunk(users(rule.chunkSize));
  const extras = Math.ceil((PURCHASERS - rule.threshold) / rule.chunkSize);
  return {
    pattern: "outlier",
    large: {
      label: `outlier: book with ${count(PURCHASERS)} purchasers`,
      expected: { outcome: "writes", kind: "moved", writes: 1 + extras, moved: PURCHASERS - rule.threshold },
      plan: () => planOutlierMove(rule, { source, lastChunk: null }),
    },
    more: [
      {
        label: `outlier: extra_sales chunk with ${count(PURCHASERS)} entries`,
        expected: {
          outcome: "writes",
          kind: "split",
          writes: PURCHASERS / rule.chunkSize,
          moved: PURCHASERS - rule.chunkSize,
        },
        plan: () =>
          planOverflowChunkSplit(rule, { chunk: overfilled, lastChunk: lastChunkOf(rule, overfilled) }),
      },
    ],
    inShape: {
      label: `outlier: book in shape (${rule.threshold} + extras)`,
      expected: { outcome: "none" },
      plan: () => planOutlierMove(rule, { source: inShape, lastChunk: lastChunkOf(rule, lastChunk) }),
    },
  };
}

const FIRST_TRADE = Date.UTC(2023, 9, 26, 19, 47, 3);

function bucketOf(trades: number, secondsApart: number): Document {
  const history = Array.from({ length: trades }, (_, i) => ({
    type: i % 2 === 0 ? "buy" : "sell",
    ticker: "MDB",
    qty: (i % 90) + 10,
    date: new Date(FIRST_TRADE + i * secondsApart * 1000),
  }));
  return { _id: `123_${FIRST_TRADE / 1000}`, customerId: 123, count: trades, history };
}

function splitBucket(rule: BucketRule, bucket: Document): () => Plan {
  return () => planBucketSplit(rule, { bucket, takenIds: new Set([bucket._id as string]) });
}

function expectSplit(rule: BucketRule, trades: number): Case["expected"] {
  const buckets = Math.ceil(trades / rule.threshold);
  return { outcome: "writes", kind: "split", writes: buckets, moved: trades - rule.threshold };
}

function bucketCases(rule: BucketRule): PatternCases {
  return {
    pattern: "bucket",
    large: {
      label: `bucket: ${count(TRADES)} trades, one per second`,
      expected: expectSplit(rule, TRADES),
      plan: splitBucket(rule, bucketOf(TRADES, 1)),
    },
    more: [],
    inShape: {
      label: `bucket: ${rule.threshold} trades, count right`,
      expected: { outcome: "none" },
      plan: splitBucket(rule, bucketOf(rule.threshold, 1)),
    },
  };
}

/** Every new bucket's _id needs a suffix, found by trying _000001, _000002... in turn. */
function sameSecondCases(rule: BucketRule): Case[] {
  return SAME_SECOND_TRADES.map((trades) => ({
    label: `bucket: ${count(trades)} trades in the same second`,
    expected: expectSplit(rule, trades),
    plan: splitBucket(rule, bucketOf(trades, 0)),
  }));
}

function review(n: number): Document {
  return {
    review_id: n,
    review_author: `reader${n % 500}`,
    review_text: `Review number ${n}: readable, well paced, would buy again.`,
    published_date: new Date(FIRST_TRADE + n * 60_000),
  };
}

/** A review as the full set stores it. */
function stored(n: number): Document {
  return { _id: `1_${n}`, ...review(n), product_id: 1 };
}

function subsetCases(rule: SubsetRule): PatternCases {
  const newestFirst = (n: number) => Array.from({ length: n }, (_, i) => n - 1 - i);
  const product = (embedded: number[]) => ({
    _id: 1,
    name: "Lamp",
    price: 30,
    reviews: embedded.map(review),
  });
  const all = newestFirst(REVIEWS);
  const newest = all.slice(0, rule.threshold);
  const [large, allStored] = [product(all), all.map(stored)];
  const [inShape, newestStored] = [product(newest), newest.map(stored)];
  return {
    pattern: "subset",
    large: {
      label: `subset: product embedding ${count(REVIEWS)} new reviews`,
      expected: { outcome: "writes", kind: "copied", writes: REVIEWS + 1, moved: REVIEWS },
      plan: () => planSubset(rule, { source: large, fullSet: [] }),
    },
    more: [
      {
        label: `subset: ${count(REVIEWS)} embedded, all already copied`,
        expected: { outcome: "writes", kind: "trimmed", writes: 1, moved: 0 },
        plan: () => planSubset(rule, { source: large, fullSet: allStored }),
      },
    ],
    inShape: {
      label: `subset: product embedding its ${rule.threshold} newest`,
      expected: { outcome: "none" },
      plan: () => planSubset(rule, { source: inShape, fullSet: newestStored }),
    },
  };
}

function checkPlan(label: string, plan: Plan, expected: Case["expected"]): void {
  const actual = {
    outcome: plan.outcome,
    kind: plan.outcome === "writes" ? plan.kind : undefined,
    writes: plan.outcome === "writes" ? plan.writes.length : undefined,
    moved: plan.outcome === "writes" ? plan.elementsMoved : undefined,
  };
  const wrong = Object.entries(expected).filter(
    ([key, value]) => actual[key as keyof typeof actual] !== value,
  );
  if (wrong.length > 0) {
    throw new Error(`${label}: expected ${JSON.stringify(expected)}, planned ${JSON.stringify(actual)}`);
  }
}

/** Times one case after checking its plan; in-shape cases are cheap and get many calls. */
function measure(planCase: Case, cheap = false): Timing {
  // The checked call is also the warm-up.
  checkPlan(planCase.label, planCase.plan(), planCase.expected);
  return cheap
    ? timeSyncFor(SMALL_BUDGET_MS, 1_000, planCase.plan)
    : timeSyncFor(LARGE_BUDGET_MS, 2, planCase.plan);
}

function row(planCase: Case, timing: Timing): string[] {
  const moved = planCase.expected.moved ?? 0;
  return [
    planCase.label,
    planCase.expected.kind ?? planCase.expected.outcome,
    count(planCase.expected.writes ?? 0),
    count(timing.calls),
    ms(timing.meanMs),
    moved > 0 ? ms(timing.meanMs / moved) : "-",
  ];
}

interface PatternResult {
  pattern: string;
  large: Timing;
  inShape: Timing;
}

async function run(): Promise<string[]> {
  heading("planners: one call on a large document, with the default rules");
  const rows: string[][] = [];
  const timed = (planCase: Case, cheap = false) => {
    const timing = measure(planCase, cheap);
    rows.push(row(planCase, timing));
    return timing;
  };
  const bucketRule = defaultRule("bucket");
  const patterns = [
    outlierCases(defaultRule("outlier")),
    bucketCases(bucketRule),
    subsetCases(defaultRule("subset")),
  ];
  const results: PatternResult[] = patterns.map((cases) => {
    const large = timed(cases.large);
    cases.more.forEach((planCase) => timed(planCase));
    return { pattern: cases.pattern, large, inShape: timed(cases.inShape, true) };
  });
  const [fewer, more] = sameSecondCases(bucketRule).map((planCase) => timed(planCase).meanMs) as [
    number,
    number,
  ];
  printTable(["case", "plan", "writes", "calls", "per call", "per element moved"], rows);

  const growth = ratio(more, fewer);
  const [fewerTrades, moreTrades] = SAME_SECOND_TRADES.map(count) as [string, string];
  const dataGrowth = ratio(SAME_SECOND_TRADES[1] ?? 0, SAME_SECOND_TRADES[0] ?? 1);
  console.log("");
  printTable(
    ["ratio", "value"],
    [
      ...results.map((result) => [
        `${result.pattern}: large document / document in shape`,
        ratio(result.large.meanMs, result.inShape.meanMs),
      ]),
      [`bucket, same second: ${moreTrades} / ${fewerTrades} trades (${dataGrowth} the data)`, growth],
    ],
  );
  const each = (pick: (result: PatternResult) => string) =>
    results.map((result) => `${result.pattern} ${pick(result)}`).join(", ");
  return [
    `per call on large documents: ${each((result) => ms(result.large.meanMs))}`,
    `per call in shape: ${each((result) => ms(result.inShape.meanMs))}`,
    `large / in shape: ${each((result) => ratio(result.large.meanMs, result.inShape.meanMs))}`,
    `same-second bucket split, ${moreTrades} / ${fewerTrades} trades: ${growth} ` +
      `(${dataGrowth} the data: linear would be ~${dataGrowth}, quadratic its square)`,
  ];
}

export const planners: Benchmark = {
  name: "planners",
  description: "pure planners on large documents vs documents already in shape",
  run,
};
