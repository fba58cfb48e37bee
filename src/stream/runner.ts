// The runner's state machine: starting -> (standby <-> leading), where leading is
// sweeping or resuming, then streaming, until stopped. Only the holder of the writer lease
// reads the stream and corrects; the others wait in standby, ready to take over. The pieces
// it drives live beside it: the lease keeper, the starting point (token or sweep), the event
// consumer, the retried correction and the lag gauge.
import type { Binary, ChangeStreamOptions, Db, Document, MongoClient } from "mongodb";
import type { Config } from "../config/schema.js";
import { classify, toError, type ErrorKind } from "../errors.js";
import type { Logger } from "../ops/logger.js";
import { reportError } from "../ops/report-error.js";
import { initialiseRuleMetrics, setRunnerState, type Metrics, type RunnerState } from "../ops/metrics.js";
import type { PatternRule } from "../patterns/driver.js";
import type { Plan } from "../patterns/plan.js";
import { ensureCollectionsAndIndexes, ownNamespaces } from "./collections.js";
import { correctUntilDone } from "./correction/correct-until-done.js";
import { SHARED_TRANSACTION_MAX } from "./correction/correction-batch.js";
import { consumeEvents } from "./events/event-consumer.js";
import type { LeaseKeeper } from "./lease/lease-keeper.js";
import { retryParkedTargets, type ParkedRetryContext } from "./parking/parked-retry.js";
import { PARKED_FIRST_RETRY_MS } from "./parking/parked-targets.js";
import { NARROW_STRETCH_EVENTS, PoisonEvents, type StreamMode } from "./events/poison-events.js";
import { pause } from "./retry.js";
import { sessionIdHex, type SessionPool } from "./lease/session-pool.js";
import { StreamLag } from "./events/stream-lag.js";
import { wireCorrections, type CurrentFencing } from "./wiring.js";
import type { PartitionLeases } from "./partitions/partition-leases.js";
import { PartitionPositions } from "./position/partition-positions.js";
import { noteSweepStart, PartitionSweeps } from "./sweep/partition-sweeps.js";
import { partitionedStart } from "./sweep/partition-start.js";
import { sweepPartitions } from "./sweep/shared-sweep.js";
import { performRequestedSweeps } from "./sweep/requested-sweeps.js";
import { keysOfPartitions, type KeyOwnership } from "./key-ownership.js";
import type { CorrectionTarget, ProjectedChangeEvent } from "./events/targets.js";
import { StatePruning } from "./position/state-pruning.js";
import { SharedPositionTender } from "./position/shared-position.js";
import { rulesFingerprint, streamName, TokenStore } from "./position/token-store.js";
import { buildWatchPipeline, watchOptions } from "./events/watch-pipeline.js";

/**
 * How often an idle stream's position (its post-batch token) is written: far inside any
 * oplog window, and far below the resume token age alert's hour, while an idle sidecar adds
 * one write a minute to the oplog rather than one a second.
 */
const IDLE_PERSIST_INTERVAL_MS = 60_000;

/** What the runner gets past without a pause, each with its line: the next turn of the loop handles it. */
const ROUTINE_RECOVERIES: Partial<Record<ErrorKind, string>> = {
  history_lost: "change stream history lost; sweeping before streaming again",
  invalidate: "change stream invalidated; restarting after it",
  lease_lost: "lost the writer lease",
};

export interface RunnerOptions {
  client: MongoClient;
  db: Db;
  /** The lease keeper's own database handle, on a small client of its own (WriterLease); `db` when absent. */
  leaseDb?: Db;
  config: Config;
  metrics: Metrics;
  logger: Logger;
  holderId?: string;
  /** How long an empty getMore waits on the server; also how fast a stop is noticed. */
  maxAwaitTimeMS?: number;
  /** How often the position is written while events are processed (1 s). */
  persistIntervalMs?: number;
  /** How often it is written while the stream idles (IDLE_PERSIST_INTERVAL_MS). */
  idlePersistIntervalMs?: number;
  /** The pause before a parked target's first retry, and how often due ones are looked for. */
  parkedRetryMs?: number;
  /** Index keys a sweep examines per query (sweep.ts); tests make it small to page often. */
  sweepPageSize?: number;
  /** How often the leader looks for requested sweeps (SWEEP_REQUEST_POLL_MS). */
  sweepRequestPollMs?: number;
}

/** The partitions whose sweep is due beside the stream (partition-sweeps.ts). */
interface DueSweep {
  partitions: number[];
}

interface StartingPoint {
  stream: ChangeStreamOptions;
  sweep?: DueSweep;
}

export interface RunnerStatus {
  state: RunnerState;
  caughtUp: boolean;
  leader: boolean;
  /** The partitions this replica owns: every one while it leads, none otherwise. */
  partitions: number[];
}

export class Runner {
  private state: RunnerState = "starting";
  private stopping = false;
  private historyLost = false;
  private readonly lag = new StreamLag();
  private readonly stopSignal = new AbortController();
  /** The enabled rules, as the deployment lets them be enforced (collections.ts may reduce one). */
  private rules: PatternRule[];
  private readonly keeper: LeaseKeeper;
  private readonly partitionLeases: PartitionLeases;
  private readonly fencing: CurrentFencing;
  private readonly partitionPositions: PartitionPositions;
  private readonly partitionSweeps: PartitionSweeps;
  /** How this replica corrects now: every key under the writer lease, its partitions', or none. */
  private mode: "lead" | "partitions" | "none" = "none";
  /** The partitions the current partitioned stream reads (its filter and its positions). */
  private streamedPartitions: number[] = [];
  /** The sessions (hex) whose transactions the current stream leaves out on the server. */
  private streamExcludes = new Set<string>();
  /** The current partitioned stream, awaited before its partitions are handed over. */
  private partitionStream: Promise<void> | undefined;
  private readonly tokens: TokenStore;
  private readonly correction: ParkedRetryContext;
  private readonly sessions: SessionPool;
  private readonly statePruning: StatePruning;
  private readonly sharedPosition: SharedPositionTender;
  private readonly poison = new PoisonEvents();
  /** Whether a sweep runs beside the stream (the runner's state says sweeping until it ends). */
  private sweeping = false;
  /** Stops the stream of the current lead, when the sweep beside it failed. */
  private streamStop = new AbortController();
  private loop: Promise<void> | undefined;
  private parkedRetrying: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: RunnerOptions) {
    const { config, db, metrics, logger } = options;
    this.rules = config.rules.filter((rule) => rule.enabled);
    const corrections = wireCorrections({
      client: options.client,
      db,
      leaseDb: options.leaseDb,
      config,
      rules: this.rules,
      metrics,
      logger,
      holderId: options.holderId,
      parkedRetryMs: this.parkedRetryMs,
      partitionHooks: {
        beforeRelease: () => this.endPartitionStream(),
        onOwnedChange: () => this.ownedChanged(),
      },
    });
    this.partitionLeases = corrections.partitionLeases;
    this.fencing = corrections.fencing;
    this.sessions = corrections.sessions;
    this.keeper = corrections.keeper;
    this.correction = corrections.context;
    this.tokens = new TokenStore(
      db,
      config.stateCollection,
      streamName(db.databaseName),
      rulesFingerprint(this.rules),
    );
    this.partitionPositions = new PartitionPositions(
      db,
      config.stateCollection,
      rulesFingerprint(this.rules),
    );
    this.partitionSweeps = new PartitionSweeps(db, config.stateCollection);
    this.statePruning = new StatePruning(db, this.rules, config.stateCollection, logger, metrics);
    this.sharedPosition = new SharedPositionTender({
      tokens: this.tokens,
      positions: this.partitionPositions,
      pruning: this.statePruning,
      partitions: config.partitions,
      logger,
      metrics,
    });
    setRunnerState(metrics, "starting");
    initialiseRuleMetrics(metrics, this.rules);
    // Only the leader owns the stream's position; a standby's own numbers would be stale.
    const streamLagSeconds = () =>
      this.state === "streaming" && this.mode !== "none" ? this.lag.seconds() : undefined;
    metrics.readStreamPositionFrom({
      streamLagSeconds,
      resumeTokenAgeSeconds: () => this.resumeTokenAgeSeconds(),
      unownedPartitions: () => this.unownedPartitions(),
      partitionLagSeconds: () =>
        new Map(this.ownedPartitions().map((partition) => [partition, streamLagSeconds()])),
    });
  }

  /** The age of the position this replica stores: its partitions', or the shared one while it leads. */
  private resumeTokenAgeSeconds(): number | undefined {
    if (this.mode === "partitions") return this.partitionPositions.secondsSinceLastPersist;
    return this.leading ? this.tokens.secondsSinceLastPersist : undefined;
  }

  /**
   * The writer lease's holder owns every partition it holds, all of them before it corrects
   * (docs/semantics.md, "Partitions"); a replica streaming by partition those it streams; a
   * standby none.
   */
  private ownedPartitions(): number[] {
    // Those it streams and still holds: a replica resumed after a pause no longer claims what it lost.
    if (this.mode === "partitions") {
      const held = this.partitionLeases.owned();
      return this.streamedPartitions.filter((partition) => held.includes(partition));
    }
    // Leading, those it holds: all of them once the others handed theirs over (holdEveryPartition).
    return this.leading ? this.partitionLeases.owned() : [];
  }

  private allPartitions(): number[] {
    return Array.from({ length: this.options.config.partitions }, (_, partition) => partition);
  }

  /** None while this replica leads or others are live or lead; all when it found no one else. */
  private unownedPartitions(): number | undefined {
    if (this.state === "starting" || this.state === "stopped") return undefined;
    if (this.mode === "partitions") return 0;
    const othersOwn = this.keeper.lease.heldElsewhere || this.partitionLeases.othersLive;
    return this.leading || othersOwn ? 0 : this.options.config.partitions;
  }

  private get leading(): boolean {
    return this.keeper.lease.held;
  }

  status(): RunnerStatus {
    return {
      state: this.state,
      caughtUp: this.lag.isCaughtUp,
      leader: this.leading,
      partitions: this.ownedPartitions(),
    };
  }

  /** Starts the loop in the background; failures are logged, never unhandled. */
  start(): void {
    this.loop ??= this.runUntilStopped().catch((thrown: unknown) => {
      this.options.logger.fatal({ err: toError(thrown) }, "runner stopped on an unexpected error");
    });
  }

  /** Stops taking events, lets in-flight corrections commit, persists the position; idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.stopSignal.abort();
      await this.loop;
      // Reverse order: corrections committed and positions stored, then partitions handed over.
      await this.partitionLeases.stop();
      await this.keeper.release();
      await this.sessions.close();
      this.setState("stopped");
    })();
    return this.stopped;
  }

  private setState(state: RunnerState): void {
    if (this.state === state) return;
    this.state = state;
    setRunnerState(this.options.metrics, state);
    this.options.logger.info({ state }, "runner state");
  }

  private async runUntilStopped(): Promise<void> {
    let prepared = false;
    let joined = false;
    while (!this.stopping) {
      try {
        prepared ||= await this.prepareCollections();
        joined ||= await this.joinMembership();
        if ((await this.needsWriterLease()) && (await this.keeper.tryAcquire())) {
          await this.inMode("lead", () => this.leadWhileHeld());
          // Led alone or swept, and others now share the partitions: the writer lease goes.
          if (!this.stopping && !(await this.needsWriterLease())) await this.keeper.release();
          continue;
        }
        const owned = this.partitionLeases.owned();
        if (owned.length > 0 && !this.keeper.lease.held && !(await this.writerLeaseHeld())) {
          await this.inMode("partitions", () => this.streamPartitions(owned));
          continue;
        }
        this.setState("standby");
        await pause(this.keeper.renewIntervalMs, this.stopSignal.signal);
      } catch (thrown) {
        await this.recoverFrom(thrown);
      }
    }
  }

  /** Starts the membership's rounds and waits for the first: whether others are live is its to say. */
  private async joinMembership(): Promise<true> {
    this.partitionLeases.start();
    await this.partitionLeases.roundOnce();
    return true;
  }

  private async inMode(mode: "lead" | "partitions", work: () => Promise<void>): Promise<void> {
    this.mode = mode;
    this.fencing.mode = mode === "lead" ? "writer" : "partitions";
    try {
      await work();
    } finally {
      this.mode = "none";
    }
  }

  /**
   * Work not partitioned takes the writer lease, as before partitions: the writer lease's
   * stream lost its history, a first start no sweep has begun or stored a position for yet,
   * a sweep of every key left halfway, and a replica alone (docs/operations.md, "Partitions
   * and rebalancing").
   */
  private async needsWriterLease(): Promise<boolean> {
    return this.needsWriterLeaseHere() || (await this.sharedWorkNeedsWriterLease());
  }

  /** What only this replica knows: its stream lost its history, or it found no other live. */
  private needsWriterLeaseHere(): boolean {
    return this.historyLost || !this.partitionLeases.othersLive;
  }

  /** What the state collection says for every replica: a sweep of every key left halfway, or a first start. */
  private async sharedWorkNeedsWriterLease(): Promise<boolean> {
    if (await this.partitionSweeps.unpartitionedPending()) return true;
    return (
      (await this.tokens.load()) === null &&
      !(await this.partitionSweeps.anyPending()) &&
      !(await this.partitionPositions.anyStored())
    );
  }

  /**
   * Whether this replica, streaming by partition, tends what every partition shares (the
   * shared position, unpartitioned work due): the one streaming partition 0. One suffices.
   */
  private get tendsSharedState(): boolean {
    return this.streamedPartitions.includes(0);
  }

  /** Whether a replica holds the writer lease now (an old version's, or one sweeping). */
  private async writerLeaseHeld(): Promise<boolean> {
    return (await this.partitionLeases.writerLeaseHolder()) !== undefined;
  }

  /** A partition handed over: its stream ends after its in-flight corrections commit. */
  private async endPartitionStream(): Promise<void> {
    this.streamStop.abort();
    await this.partitionStream?.catch(() => undefined);
  }

  /** Owned partitions changed: the stream restarts with the new filter; a lone leader shares. */
  private ownedChanged(): void {
    if (this.mode === "partitions") this.streamStop.abort();
    else if (this.mode === "lead") void this.shareLeadIfDue();
  }

  /** The owned partitions' stream (partition-start.ts), their pending sweeps beside it. */
  private async streamPartitions(owned: number[]): Promise<void> {
    const start = await this.startOfPartitions(owned, (await this.tokens.load())?.resumeToken);
    this.streamedPartitions = owned;
    this.streamStop = new AbortController();
    const parkedRetries = setInterval(() => void this.retryDueParkedTargets(), this.parkedRetryMs);
    const checks = setInterval(() => void this.endPartitionStreamIfDue(), this.keeper.renewIntervalMs);
    this.partitionStream = start.sweep
      ? this.streamWhileSweeping(start.stream, start.sweep)
      : this.stream(start.stream);
    const streamEnded = new AbortController();
    const requestedSweeps = this.performRequestedSweeps(streamEnded.signal);
    this.partitionStream = this.partitionStream.finally(async () => {
      streamEnded.abort();
      await requestedSweeps;
    });
    try {
      await this.partitionStream;
    } catch (thrown) {
      if (classify(thrown) !== "history_lost") throw thrown;
      reportError(this.options, thrown, "change stream history lost; sweeping these partitions again", {
        level: "warn",
      });
      await this.restartSweeps(owned);
    } finally {
      clearInterval(parkedRetries);
      clearInterval(checks);
      await this.parkedRetrying;
      this.partitionStream = undefined;
    }
  }

  /**
   * A sweep is due or this replica is alone: the stream ends, the loop takes the writer lease;
   * or another replica took it (as the last membership round read): the stream ends, and this
   * one waits until it is released; or a session to leave out is new (sessionsNotExcluded): the
   * stream ends, and the loop starts it again with the session in its `$match`. Whether shared
   * work is due (two reads a round) only the replica tending shared state reads: once it takes
   * the writer lease for it, the others' rounds find the lease taken.
   */
  private async endPartitionStreamIfDue(): Promise<void> {
    const due = this.tendsSharedState ? await this.tendSharedState() : this.needsWriterLeaseHere();
    if (this.mode !== "partitions") return;
    if (due || this.partitionLeases.writerElsewhere || this.sessionsNotExcluded()) this.streamStop.abort();
  }

  /**
   * The sessions whose corrections the stream leaves out: this replica's and those the other
   * replicas' leases list, as the last round read them.
   */
  private correctionSessions(): Binary[] {
    return [...this.sessions.ids, ...this.partitionLeases.othersSessions];
  }

  /**
   * Whether a replica that joined (or a session started) since the stream began corrects on a
   * session the stream does not leave out: its corrections' events would reach this replica,
   * to be decoded and dropped. The stream then starts again, once per joining replica.
   */
  private sessionsNotExcluded(): boolean {
    return this.correctionSessions().some((id) => !this.streamExcludes.has(sessionIdHex(id)));
  }

  private async prepareCollections(): Promise<true> {
    const { db, config, logger, metrics } = this.options;
    this.rules = await ensureCollectionsAndIndexes(db, this.rules, config.stateCollection, logger, metrics);
    return true;
  }

  private async recoverFrom(thrown: unknown): Promise<void> {
    const routine = ROUTINE_RECOVERIES[classify(thrown)];
    const level = routine ? "warn" : this.stopping ? "debug" : "error";
    const kind = reportError(this.options, thrown, routine ?? "runner failed; starting over", { level });
    if (kind === "history_lost") {
      this.historyLost = true;
    } else if (kind === "lease_lost") {
      this.keeper.lease.forget();
      this.options.metrics.isLeader.set(0);
    } else if (!routine && !this.stopping) {
      await pause(1000, this.stopSignal.signal);
    }
  }

  private async leadWhileHeld(): Promise<void> {
    this.keeper.startRenewing();
    try {
      if (await this.holdEveryPartition()) await this.leadHoldingEvery();
    } finally {
      this.keeper.stopRenewing();
    }
  }

  /** The lead's work, none of it before it holds every partition: its stream, parked retries, requested sweeps. */
  private async leadHoldingEvery(): Promise<void> {
    const parkedRetries = setInterval(() => void this.retryDueParkedTargets(), this.parkedRetryMs);
    const sharing = setInterval(() => void this.shareLeadIfDue(), this.keeper.renewIntervalMs);
    const leadEnded = new AbortController();
    const requestedSweeps = this.performRequestedSweeps(leadEnded.signal);
    try {
      const start = await this.startingPoint();
      if (!this.mayContinue()) return;
      this.streamStop = new AbortController();
      if (!start.sweep && (await this.shouldShareLead())) return;
      await (start.sweep ? this.streamWhileSweeping(start.stream, start.sweep) : this.stream(start.stream));
    } finally {
      clearInterval(parkedRetries);
      clearInterval(sharing);
      leadEnded.abort();
      await requestedSweeps;
      await this.parkedRetrying;
    }
  }

  /**
   * The writer lease's holder corrects every key only once it holds every partition: replicas
   * streaming by partition hand theirs over when they see the lease taken, after their running
   * corrections commit, and a paused one's is taken once expired; none corrects beside it.
   * Replicas started together may each find no other live at first: one takes the lease, the
   * others see it and hand over what they took. Once a round shows the lead is not needed
   * after all (others live, no unpartitioned work), it ends, having corrected nothing, rather
   * than gather every partition only to hand most of them back.
   */
  private async holdEveryPartition(): Promise<boolean> {
    let waited = false;
    while (this.mayContinue()) {
      await this.partitionLeases.roundOnce();
      if (!(await this.needsWriterLease())) return false;
      if (this.partitionLeases.holdsEvery) return true;
      if (!waited) this.options.logger.info("waiting for the other replicas to hand their partitions over");
      waited = true;
      await pause(this.partitionLeases.intervalMs, this.stopSignal.signal);
    }
    return false;
  }

  /** Which documents this replica corrects: the one place its sweeps ask (key-ownership.ts). */
  private keysOwned(): KeyOwnership {
    return keysOfPartitions(this.ownedPartitions(), this.options.config.partitions);
  }

  private readonly ownsTarget = (target: CorrectionTarget): boolean => this.keysOwned().owns(target);

  /** Performs this replica's share of the sweeps operators request (requested-sweeps.ts) until `ended`. */
  private performRequestedSweeps(ended: AbortSignal): Promise<void> {
    const { db, config, logger, metrics } = this.options;
    return performRequestedSweeps({
      db,
      stateCollection: config.stateCollection,
      rules: () => this.rules,
      holder: this.keeper.lease.holder,
      ownedPartitions: () => this.ownedPartitions(),
      partitionCount: config.partitions,
      correct: (target) => this.correct(target),
      retryParked: (shouldStop) =>
        retryParkedTargets(this.correction, { dueOnly: false, shouldStop, owns: this.ownsTarget }),
      mayContinue: () => this.mayContinue() && !ended.aborted,
      signal: AbortSignal.any([this.stopSignal.signal, ended]),
      logger,
      metrics,
      pollMs: this.options.sweepRequestPollMs,
      pageSize: this.options.sweepPageSize,
    });
  }

  private get parkedRetryMs(): number {
    return this.options.parkedRetryMs ?? PARKED_FIRST_RETRY_MS;
  }

  /** One pass over the parked targets due for a retry; never two at once. */
  private async retryDueParkedTargets(): Promise<void> {
    if (this.parkedRetrying) return;
    this.parkedRetrying = retryParkedTargets(this.correction, {
      dueOnly: true,
      owns: this.ownsTarget,
      shouldStop: () => !this.mayContinue(),
    }).catch((thrown: unknown) => {
      reportError(this.options, thrown, "retrying parked documents failed; will try again");
    });
    await this.parkedRetrying;
    this.parkedRetrying = undefined;
  }

  private mayContinue(): boolean {
    if (this.stopping) return false;
    if (this.mode === "partitions")
      return this.partitionLeases.owned().join() === this.streamedPartitions.join();
    return this.leading;
  }

  /**
   * Others are live and nothing unpartitioned is left: the lead ends and the writer lease goes,
   * a sweep under way too (each partition's continues with its owner).
   */
  private async shouldShareLead(): Promise<boolean> {
    return !(await this.needsWriterLease());
  }

  private async shareLeadIfDue(): Promise<void> {
    const share = await this.shouldShareLead().catch(() => false);
    if (share && this.mode === "lead") this.streamStop.abort();
  }

  /**
   * Where the writer lease's stream starts, over every partition (partition-start.ts), and the
   * partitions' sweeps due beside it: on a first start, after lost history, and those left
   * halfway (docs/semantics.md, "Sweeps by partition").
   */
  private async startingPoint(): Promise<StartingPoint> {
    const all = this.allPartitions();
    const lost = this.historyLost;
    // A stream from an interrupted sweep's start may be what just failed: start afresh.
    if (lost) await this.restartSweeps(all);
    this.historyLost = false;
    await this.partitionSweeps.adoptUnpartitioned(all);
    return this.startOfPartitions(all, lost ? undefined : (await this.tokens.load())?.resumeToken);
  }

  /** Where a stream of `partitions` starts, with their pending sweeps; the runner's state says which. */
  private async startOfPartitions(
    partitions: number[],
    shared: Document | undefined,
  ): Promise<StartingPoint> {
    const { db } = this.options;
    const start = await partitionedStart(
      db,
      this.partitionSweeps,
      this.partitionPositions,
      partitions,
      shared,
    );
    this.setState(start.sweeping.length > 0 ? "sweeping" : "resuming");
    return {
      stream: start.stream,
      sweep: start.sweeping.length > 0 ? { partitions: start.sweeping } : undefined,
    };
  }

  /** Their history is lost: their positions go and their sweeps start again, from now. */
  private async restartSweeps(partitions: number[]): Promise<void> {
    const start = await noteSweepStart(this.options.db);
    await this.partitionPositions.forget(partitions);
    await this.partitionSweeps.restart(partitions, start);
  }

  /**
   * The sweep, and the stream from the time noted before it, side by side: a stream that
   * waited for a sweep longer than the oplog window could never be opened. The stream's
   * failure stops the sweep, the sweep's the stream.
   */
  private async streamWhileSweeping(from: ChangeStreamOptions, due: DueSweep): Promise<void> {
    const stopSweep = new AbortController();
    this.sweeping = true;
    const streaming = this.stream(from).finally(() => stopSweep.abort());
    // Awaited once the sweep stops: a stream failing before that (its history lost) would
    // meanwhile be a rejection nobody handles, which ends a Node process.
    streaming.catch(() => undefined);
    try {
      await this.sweepBeside(due, stopSweep.signal);
    } catch (thrown) {
      this.streamStop.abort();
      await streaming.catch(() => undefined);
      throw thrown;
    } finally {
      this.sweeping = false;
    }
    if (!stopSweep.signal.aborted) this.setState("streaming");
    await streaming;
  }

  private async sweepBeside({ partitions }: DueSweep, stopped: AbortSignal): Promise<void> {
    const shouldStop = () => stopped.aborted || !this.mayContinue();
    await sweepPartitions({
      sweeps: this.partitionSweeps,
      partitions,
      partitionCount: this.options.config.partitions,
      db: this.options.db,
      rules: this.rules,
      stateCollection: this.options.config.stateCollection,
      logger: this.options.logger,
      metrics: this.options.metrics,
      correct: (target) => this.correct(target),
      retryParked: () =>
        retryParkedTargets(this.correction, { dueOnly: false, shouldStop, owns: this.ownsTarget }),
      shouldStop,
      pageSize: this.options.sweepPageSize,
    });
  }

  private async stream(start: ChangeStreamOptions): Promise<void> {
    const mode = this.poison.mode;
    try {
      await this.streamFrom(start, mode);
    } catch (thrown) {
      this.escalate(thrown);
      throw thrown;
    }
    if (mode === "narrow") this.poison.stretchRead();
  }

  /** A failure that repeats where the stream stands gets past it (poison-events.ts). */
  private escalate(thrown: unknown): void {
    const escalation = this.poison.streamFailed(thrown);
    if (escalation === "retry") return;
    const { logger, metrics } = this.options;
    metrics.errors.inc({ kind: "poison_event" });
    const context = { err: toError(thrown), newestEventRead: this.poison.newestRead, escalation };
    if (escalation === "narrow") {
      logger.error(
        context,
        "change stream failed twice at one position; reading past it with a narrower stream",
      );
    } else {
      this.historyLost = true;
      logger.error(
        context,
        "the narrower stream failed at that position too; sweeping, then streaming from now",
      );
    }
  }

  private async streamFrom(start: ChangeStreamOptions, mode: StreamMode): Promise<void> {
    const { db, config, metrics, logger } = this.options;
    const partitioned = this.mode === "partitions";
    const owned = { count: config.partitions, owned: this.streamedPartitions };
    const excluded = this.correctionSessions();
    this.streamExcludes = new Set(excluded.map(sessionIdHex));
    const stream = db.watch<Document, ProjectedChangeEvent>(
      buildWatchPipeline(this.rules, mode, excluded, partitioned ? owned : undefined),
      {
        ...start,
        ...watchOptions(this.rules),
        maxAwaitTimeMS: this.options.maxAwaitTimeMS ?? 1000,
      },
    );
    this.lag.reset();
    if (!this.sweeping) this.setState("streaming");
    try {
      await consumeEvents({
        stream,
        rules: this.rules,
        // Corrections wait for one of `concurrency` slots; many more targets in flight
        // is what lets ready ones share a transaction (correction-batch.ts). Twice a full
        // batch per slot: with one, the targets waiting when a slot frees are only those
        // the last batch made room for, in arrival order, and a batch could not be taken
        // from one rule (batch-choice.ts).
        inFlight: config.concurrency * SHARED_TRANSACTION_MAX * 2,
        // As far as before in-flight doubled (2,048 at concurrency 8), not four times it.
        readAhead: config.concurrency * SHARED_TRANSACTION_MAX * 4,
        tokens: partitioned
          ? {
              persistResumeToken: (token, seconds) =>
                this.partitionPositions.persist(owned.owned, token, seconds),
            }
          : this.tokens,
        metrics,
        logger,
        correct: (target) => this.correct(target),
        // An event names the targets of every partition its keys fall in; each owner corrects its own.
        ...(partitioned ? { owns: keysOfPartitions(owned.owned, config.partitions).owns } : {}),
        isOwnWrite: (event) => this.correction.ownWrites.isOwn(event),
        shouldContinue: () => this.mayContinue() && !this.streamStop.signal.aborted,
        // Stopping or handing over, what has not started is left to the next stream (its owner's).
        handOver: AbortSignal.any([this.streamStop.signal, this.stopSignal.signal]),
        persistIntervalMs: this.options.persistIntervalMs ?? 1000,
        idlePersistIntervalMs: this.options.idlePersistIntervalMs ?? IDLE_PERSIST_INTERVAL_MS,
        onCaughtUp: (caughtUp) => this.lag.setCaughtUp(caughtUp),
        onEventProcessed: (clusterTimeSeconds) => this.lag.eventProcessed(clusterTimeSeconds),
        onEventRead: (clusterTime) => this.poison.eventRead(clusterTime),
        // An idle partition's store moves the shared position too: another's may have held it back.
        onPositionPersisted: partitioned
          ? async () => {
              if (this.tendsSharedState) await this.sharedPosition.positionStored();
            }
          : (clusterTimeSeconds) => this.statePruning.positionPersisted(clusterTimeSeconds),
        onNamespaceEvent: (event) => this.namespaceChanged(event),
        ...(mode === "narrow" ? { stretch: { maxEvents: NARROW_STRETCH_EVENTS } } : {}),
      });
    } finally {
      this.lag.setCaughtUp(false);
      // The driver already ignores a failed killCursors here, and the server times an
      // abandoned cursor out by itself; nothing the stream did is undone by this failing.
      await stream.close().catch((err: unknown) => logger.debug({ err }, "closing the change stream failed"));
    }
  }

  /**
   * The tender's lease round: retries the shared position if it fell short and its wait is
   * over (shared-position.ts), then answers whether work needing the writer lease is due
   * (false when unreadable).
   */
  private async tendSharedState(): Promise<boolean> {
    await this.sharedPosition.roundCame();
    return this.needsWriterLease().catch(() => false);
  }

  /**
   * A collection of the rules (or the state collection) was dropped or renamed, or the
   * database itself: the rules' collections and their indexes are made again at once, so
   * that the applications' next writes land in an indexed collection. Other collections'
   * drops and renames are none of the sidecar's business.
   */
  private async namespaceChanged(event: ProjectedChangeEvent): Promise<void> {
    const { operationType, ns, to } = event;
    const own = ownNamespaces(this.rules, this.options.config.stateCollection);
    const names = [ns?.coll, to?.coll];
    if (names.some((name) => name !== undefined) && !names.some((name) => own.includes(name!))) return;
    this.options.logger.warn(
      { operationType, ns, to },
      "collection dropped or renamed; re-creating the rules' collections and indexes",
    );
    await this.prepareCollections();
  }

  private correct(target: CorrectionTarget): Promise<Plan> {
    return correctUntilDone(this.correction, target, {
      mayContinue: () => this.mayContinue(),
      signal: this.stopSignal.signal,
    });
  }
}
