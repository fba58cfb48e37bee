// Starts sidecar runners against the test deployment (test/support/mongo.ts), with logs
// captured as parsed JSON lines and metrics readable as numbers.
import { randomBytes } from "node:crypto";
import type { CommandStartedEvent, Db, Document, MongoClient } from "mongodb";
import { pino } from "pino";
import { configSchema, type Config } from "../../src/config/schema.js";
import { createLogger } from "../../src/ops/logger.js";
import { createMetrics, type Metrics } from "../../src/ops/metrics.js";
import type { CorrectionContext } from "../../src/stream/correction/correction.js";
import { leaseClientOptions, WriterLease } from "../../src/stream/lease/lease.js";
import { SessionPool } from "../../src/stream/lease/session-pool.js";
import {
  PartitionLeases,
  type PartitionLeasesOptions,
} from "../../src/stream/partitions/partition-leases.js";
import { OwnWrites } from "../../src/stream/events/own-writes.js";
import { Runner } from "../../src/stream/runner.js";
import { waitUntil } from "../../src/cli/wait-until.js";
import { useTestDatabase, type ServerVersion, type TestMongo } from "./mongo.js";

export type LogLine = Record<string, unknown> & { msg?: string };

export interface TestSidecar {
  runner: Runner;
  metrics: Metrics;
  logs: LogLine[];
  /** Stops the runner and closes its clients. */
  stop(): Promise<void>;
}

// One name per test process: node --test runs files in parallel, and against a real replica
// set a fail point aimed at one file's sidecar must not hit another file's.
export const SIDECAR_APP_NAME = `sidecar-under-test-${randomBytes(3).toString("hex")}`;
export const LEASE_APP_NAME = `${SIDECAR_APP_NAME}-lease`;

/** A logger's destination that keeps each line, parsed, in `logs`. */
export function logCapture(logs: LogLine[]): { write: (line: string) => void } {
  return { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) };
}

export function testConfig(database: string, overrides: Record<string, unknown> = {}): Config {
  return configSchema.parse({ database, leaseSeconds: 3, concurrency: 4, ...overrides }) as Config;
}

export interface SidecarOptions {
  waitForStreaming?: boolean;
  holderId?: string;
  sweepPageSize?: number;
  /**
   * Log as `run` does (JSON at info, written to a file descriptor), to /dev/null, and capture
   * only warnings and errors in `logs`, instead of every debug line: a benchmark then pays
   * what a real sidecar pays.
   */
  productionLogs?: boolean;
}

/** A runner of its own client (so fail points can target it by appName), streaming and caught up. */
export async function startSidecar(
  mongo: TestMongo,
  config: Config,
  options: SidecarOptions = {},
): Promise<TestSidecar> {
  const client = await mongo.newClient({ appName: SIDECAR_APP_NAME });
  // As `run` connects: the lease on a client of its own, which fail points aimed at the
  // sidecar's corrections leave alone.
  const leaseClient = await mongo.newClient({
    ...leaseClientOptions(config.leaseSeconds),
    appName: LEASE_APP_NAME,
  });
  const handles = { client, db: client.db(config.database), leaseDb: leaseClient.db(config.database) };
  return runSidecar(handles, config, options, async () => {
    await Promise.all([client.close(), leaseClient.close()]);
  });
}

/** Product `productId` with `reviews` (oldest first) in the full set, embedding the newest `embedded`, newest first. */
export async function insertReviewedProduct(
  db: Db,
  productId: number,
  reviews: readonly Document[],
  embedded = 10,
): Promise<void> {
  await db.collection("reviews").insertMany(reviews.map((doc) => ({ ...doc, product_id: productId })));
  const newest = [...reviews].reverse().slice(0, embedded);
  await db
    .collection<Product>("products")
    .insertOne({ _id: productId, name: `product ${productId}`, reviews: newest });
}

/** A subset correction's read of products: the products with their newest reviews joined ($lookup). */
export function isProductStateRead(event: CommandStartedEvent): boolean {
  const pipeline = (event.command.pipeline ?? []) as Document[];
  return event.command.aggregate === "products" && pipeline.some((stage) => "$lookup" in stage);
}

/**
 * Replicas of one config, one per holder id, started one after another without waiting for
 * each, into `started` (for the caller's teardown, whatever happens); resolves once every
 * replica in `started` (those already there too) streams an even share of the partitions.
 */
export async function startReplicasSharing(
  mongo: TestMongo,
  config: Config,
  holderIds: readonly string[],
  started: TestSidecar[],
  options: Pick<SidecarOptions, "sweepPageSize"> = {},
): Promise<void> {
  const replicas = started.length + holderIds.length;
  if (config.partitions % replicas !== 0)
    throw new Error(`${config.partitions} partitions cannot be shared evenly by ${replicas} replicas`);
  for (const holderId of holderIds)
    started.push(await startSidecar(mongo, config, { ...options, holderId, waitForStreaming: false }));
  const share = config.partitions / replicas;
  await waitUntil(
    () =>
      started.every(({ runner }) => {
        const status = runner.status();
        return status.state === "streaming" && !status.leader && status.partitions.length === share;
      }),
    { timeoutMs: 20_000, description: `the ${started.length} replicas to stream ${share} partitions each` },
  );
}

/** A runner on one client whose every command is told to `onCommand` (command monitoring), streaming and caught up. */
export async function startSidecarTellingCommands(
  mongo: TestMongo,
  config: Config,
  onCommand: (event: CommandStartedEvent) => void,
): Promise<TestSidecar> {
  const client = await mongo.newClient({ monitorCommands: true });
  client.on("commandStarted", onCommand);
  return runSidecar({ client, db: client.db(config.database) }, config, {}, () => client.close());
}

/**
 * A runner on handles made elsewhere (connectDeployment's, as `run` makes them), streaming and
 * caught up; `stop` stops it, then calls `closeHandles`.
 */
export async function runSidecar(
  handles: { client: MongoClient; db: Db; leaseDb?: Db },
  config: Config,
  options: SidecarOptions = {},
  closeHandles: () => Promise<void> = async () => {},
): Promise<TestSidecar> {
  const logs: LogLine[] = [];
  const capture = logCapture(logs);
  const logger = options.productionLogs
    ? createLogger({
        destination: pino.multistream([
          { level: "info", stream: pino.destination("/dev/null") },
          { level: "warn", stream: capture },
        ]),
      })
    : createLogger({ level: "debug", destination: capture });
  const metrics = createMetrics();
  const runner = new Runner({
    ...handles,
    config,
    metrics,
    logger,
    holderId: options.holderId,
    maxAwaitTimeMS: 100,
    persistIntervalMs: 100,
    parkedRetryMs: 200,
    sweepPageSize: options.sweepPageSize,
  });
  runner.start();
  if (options.waitForStreaming ?? true) await waitForCaughtUp(runner);
  const stop = async () => {
    await runner.stop();
    await closeHandles();
  };
  return { runner, metrics, logs, stop };
}

export async function waitForCaughtUp(runner: Runner, timeoutMs = 10_000): Promise<void> {
  await waitUntil(() => runner.status().state === "streaming" && runner.status().caughtUp, {
    timeoutMs,
    description: "the sidecar to stream and catch up",
  });
}

/** Sum of a counter or gauge over all its label sets (optionally only those matching `labels`). */
export async function metricTotal(
  metric: { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> },
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  return values
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * Every correction logged, alone ("corrected document") or on its shared transaction's line
 * ("corrected documents"), with how many corrections shared its transaction (1 alone).
 */
export function correctionsLogged(logs: readonly LogLine[]): { key: unknown; batch: number }[] {
  return logs.flatMap((line) => {
    if (line.msg === "corrected document") return [{ key: line.key, batch: 1 }];
    if (line.msg !== "corrected documents") return [];
    const corrections = line.corrections as { key: unknown }[];
    return corrections.map(({ key }) => ({ key, batch: line.batch as number }));
  });
}

/**
 * Every partition a replica's leases held at some time from its `since`-th log line on (from
 * the start by default): those of its "partitions owned" lines after it, and of the last before.
 */
export function partitionsEverHeld(replica: TestSidecar, since = 0): Set<number> {
  const owned = (line: LogLine) => line.msg === "partitions owned";
  const before = replica.logs.slice(0, since).findLast(owned);
  const lines = [...(before ? [before] : []), ...replica.logs.slice(since).filter(owned)];
  return new Set(lines.flatMap((line) => line.partitions as number[]));
}

export function statesLogged(logs: readonly LogLine[]): unknown[] {
  return logs.filter((line) => line.msg === "runner state").map((line) => line.state);
}

export function users(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `user${String(from + i).padStart(2, "0")}`);
}

/** The seed's "all purchasers of a book": the embedded ones, then each overflow document in order. */
export async function allPurchasers(db: Db, bookId: unknown): Promise<string[]> {
  const book = await db.collection("sales").findOne({ _id: bookId as never });
  const extras = await db.collection("extra_sales").find({ book_id: bookId }).sort({ seq: 1 }).toArray();
  return [
    ...((book?.customers_purchased as string[] | undefined) ?? []),
    ...extras.flatMap((doc) => (doc.customers_purchased_extra as string[] | undefined) ?? []),
  ];
}

/** Inserts a book whose `count` purchasers (user00 onwards) all sit in sales, as a naive application leaves them. */
export async function insertBook(db: Db, bookId: number, count: number): Promise<void> {
  await db.collection("sales").insertOne({ _id: bookId as never, customers_purchased: users(0, count) });
}

/** Whether a book embeds exactly the default threshold (50), is flagged, and holds `total` purchasers in all. */
export async function isBookCorrected(db: Db, bookId: number, total: number): Promise<boolean> {
  const book = await db.collection("sales").findOne({ _id: bookId as never });
  const embedded = (book?.customers_purchased as unknown[] | undefined)?.length;
  return embedded === 50 && book?.has_extras === true && (await allPurchasers(db, bookId)).length === total;
}

/**
 * The commands that carry a correction's inserts: `insert` before MongoDB 8.0; since, one
 * `bulkWrite` carries all of a correction's writes (src/stream/correction/bulk-write.ts).
 */
export const CORRECTION_INSERT_COMMANDS = ["insert", "bulkWrite"];

/** Fails the sidecar's own `commands` with `errorCode` (the real failCommand, aimed by appName). */
export async function failSidecarCommands(
  mongo: TestMongo,
  options: { commands: string[]; errorCode: number; mode: "alwaysOn" | { times: number } },
): Promise<void> {
  await mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: options.mode,
    data: { failCommands: options.commands, errorCode: options.errorCode, appName: SIDECAR_APP_NAME },
  });
}

/** Delays each of the sidecar's commits by `blockTimeMS` (failCommand's blockConnection, aimed by appName). */
export async function slowSidecarCommits(mongo: TestMongo, blockTimeMS: number): Promise<void> {
  await mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: "alwaysOn",
    data: {
      failCommands: ["commitTransaction"],
      blockConnection: true,
      blockTimeMS,
      appName: SIDECAR_APP_NAME,
    },
  });
}

export async function turnFailPointOff(mongo: TestMongo): Promise<void> {
  await mongo.client.db("admin").command({ configureFailPoint: "failCommand", mode: "off" });
}

/** A book in the outlier seed's shape, as the seed's application writes it. */
export interface Book {
  _id: number;
  title: string;
  customers_purchased: string[];
  has_extras?: boolean;
}

/** An overflow chunk of a book: `seq` is the sidecar's; the seed's application writes none. */
export interface ExtraSales {
  book_id: number;
  seq?: number;
  customers_purchased_extra: string[];
}

export interface Product {
  _id: number;
  name: string;
  reviews: Document[];
}

/** A review in the seed's shape, written by `author<id>`. */
export function review(id: number, published: Date): Document {
  return {
    review_id: id,
    review_author: `author${id}`,
    review_text: `text ${id}`,
    published_date: published,
  };
}

export interface SidecarFixture {
  mongo: TestMongo;
  /** The fresh database the sidecar watches, through the test's own client. */
  db: Db;
  sidecar: TestSidecar;
}

/**
 * Registers the test file's before/after hooks: a test deployment, a fresh database and a
 * sidecar streaming on it (testConfig with `overrides`), all torn down after the file. Read
 * the fields inside tests.
 */
export function useSidecarOnFreshDatabase(
  label: string,
  overrides: Record<string, unknown> = {},
  { serverVersion }: { serverVersion?: ServerVersion } = {},
): SidecarFixture {
  const fixture = {} as SidecarFixture;
  useTestDatabase(label, {
    serverVersion,
    setUp: async ({ mongo, db }) => {
      fixture.mongo = mongo;
      fixture.db = db;
      fixture.sidecar = await startSidecar(mongo, testConfig(db.databaseName, overrides));
    },
    tearDown: async () => {
      await fixture.sidecar?.stop();
    },
  });
  return fixture;
}

/** A writer lease over a pool of sessions of its own, as wiring.ts builds it: only those are fenced. */
export interface FencedLease {
  lease: WriterLease;
  sessions: SessionPool;
}

export function fencedLease(client: MongoClient, db: Db, holder: string, leaseSeconds = 30): FencedLease {
  const sessions = new SessionPool(client, 2);
  const lease = new WriterLease(db, "pattern_sidecar_state", holder, leaseSeconds, {
    sessionIds: () => sessions.ids,
  });
  return { lease, sessions };
}

/** A replica's partition leases (16 partitions, 30 s) over a pool of sessions of its own, as fencedLease's. */
export function fencedPartitions(
  client: MongoClient,
  db: Db,
  holder: string,
  extra: Partial<PartitionLeasesOptions> = {},
): { leases: PartitionLeases; sessions: SessionPool } {
  const sessions = new SessionPool(client, 2);
  const leases = new PartitionLeases({
    db,
    stateCollection: "pattern_sidecar_state",
    holder,
    leaseSeconds: 30,
    partitions: 16,
    sessionIds: () => sessions.ids,
    logger: createLogger({ level: "silent" }),
    ...extra,
  });
  return { leases, sessions };
}

/** What a leader corrects with, for calling correctTarget directly: logs silenced, 3 attempts. */
export function correctionContext(
  client: MongoClient,
  db: Db,
  { lease, sessions }: Pick<CorrectionContext, "lease"> & Pick<FencedLease, "sessions">,
  extra: Partial<CorrectionContext> = {},
): CorrectionContext {
  return {
    client,
    db,
    stateCollection: "pattern_sidecar_state",
    lease,
    sessions,
    metrics: createMetrics(),
    logger: createLogger({ level: "silent" }),
    maxTransactionAttempts: 3,
    ownWrites: new OwnWrites(),
    ...extra,
  };
}
