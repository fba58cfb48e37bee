// The runner's state machine: starting -> (standby <-> leading), where leading is
// sweeping or resuming, then streaming, until stopped. Only the holder of the writer lease
// reads the stream and corrects; the others wait in standby, ready to take over.
import { setTimeout as delay } from "node:timers/promises";
import type { ChangeStreamOptions, Db, Document, MongoClient } from "mongodb";
import type { Config } from "../config/schema.js";
import type { PatternRule } from "../patterns/driver.js";
import { classify, LeaseLostError, toError } from "../errors.js";
import type { Logger } from "../ops/logger.js";
import { initialiseRuleMetrics, setRunnerState, type Metrics, type RunnerState } from "../ops/metrics.js";
import type { Plan } from "../patterns/plan.js";
import { currentClusterTime } from "./cluster-time.js";
import { ensureCollectionsAndIndexes } from "./collections.js";
import { correctTarget, type CorrectionContext } from "./correction.js";
import { consumeEvents } from "./event-consumer.js";
import { newHolderId, WriterLease } from "./lease.js";
import { sweep } from "./sweep.js";
import { targetLabels, type CorrectionTarget, type ProjectedChangeEvent } from "./targets.js";
import { rulesFingerprint, streamName, TokenStore } from "./token-store.js";
import { buildWatchPipeline } from "./watch-pipeline.js";

export interface RunnerOptions {
  client: MongoClient;
  db: Db;
  config: Config;
  metrics: Metrics;
  logger: Logger;
  holderId?: string;
  /** How long an empty getMore waits on the server; also how fast a stop is noticed. */
  maxAwaitTimeMS?: number;
  persistIntervalMs?: number;
}

export interface RunnerStatus {
  state: RunnerState;
  caughtUp: boolean;
  leader: boolean;
}

export class Runner {
  private state: RunnerState = "starting";
  private caughtUp = false;
  private stopping = false;
  private historyLost = false;
  /** Cluster time (seconds) of the newest event whose corrections all committed, this stream. */
  private lastEventClusterSeconds: number | undefined;
  private readonly stopSignal = new AbortController();
  private readonly rules: PatternRule[];
  private readonly lease: WriterLease;
  private readonly tokens: TokenStore;
  private readonly correction: CorrectionContext;
  private loop: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: RunnerOptions) {
    const { config, db } = options;
    this.rules = config.rules.filter((rule) => rule.enabled);
    this.lease = new WriterLease(
      db,
      config.stateCollection,
      options.holderId ?? newHolderId(),
      config.leaseSeconds,
    );
    this.tokens = new TokenStore(
      db,
      config.stateCollection,
      streamName(db.databaseName),
      rulesFingerprint(this.rules),
    );
    this.correction = {
      ...options,
      lease: this.lease,
      maxTransactionAttempts: config.maxTransactionAttempts,
    };
    setRunnerState(options.metrics, "starting");
    initialiseRuleMetrics(options.metrics, this.rules);
    // Only the leader owns the stream's position; a standby's own numbers would be stale.
    options.metrics.readStreamPositionFrom({
      streamLagSeconds: () => this.streamLagSeconds(),
      resumeTokenAgeSeconds: () => (this.lease.held ? this.tokens.secondsSinceLastPersist : undefined),
    });
  }

  status(): RunnerStatus {
    return { state: this.state, caughtUp: this.caughtUp, leader: this.lease.held };
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
      await this.lease
        .release()
        .catch((err: unknown) => this.options.logger.warn({ err }, "could not release lease"));
      this.options.metrics.isLeader.set(0);
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

  private get renewIntervalMs(): number {
    return (this.options.config.leaseSeconds * 1000) / 3;
  }

  private async runUntilStopped(): Promise<void> {
    let prepared = false;
    while (!this.stopping) {
      try {
        prepared ||= await this.prepareCollections();
        if (!(await this.tryLease())) {
          this.setState("standby");
          await this.pause(this.renewIntervalMs);
          continue;
        }
        await this.leadWhileHeld();
      } catch (thrown) {
        await this.recoverFrom(thrown);
      }
    }
  }

  private async prepareCollections(): Promise<true> {
    const { db, config, logger, metrics } = this.options;
    await ensureCollectionsAndIndexes(db, this.rules, config.stateCollection, logger, metrics);
    return true;
  }

  private async tryLease(): Promise<boolean> {
    try {
      const held = await this.lease.acquireOrRenew();
      this.options.metrics.isLeader.set(held ? 1 : 0);
      return held;
    } catch (err) {
      this.options.metrics.errors.inc({ kind: classify(err) });
      this.options.logger.warn({ err }, "could not reach the writer lease");
      return false;
    }
  }

  private async recoverFrom(thrown: unknown): Promise<void> {
    const kind = classify(thrown);
    const err = toError(thrown);
    this.options.metrics.errors.inc({ kind });
    if (kind === "history_lost") {
      this.historyLost = true;
      this.options.logger.warn({ err }, "change stream history lost; sweeping before streaming again");
    } else if (thrown instanceof LeaseLostError) {
      this.lease.forget();
      this.options.metrics.isLeader.set(0);
      this.options.logger.warn({ err }, "lost the writer lease");
    } else if (!this.stopping) {
      this.options.logger.error({ err, kind }, "runner failed; starting over");
      await this.pause(1000);
    }
  }

  private async leadWhileHeld(): Promise<void> {
    const renewal = setInterval(() => void this.renewLease(), this.renewIntervalMs);
    try {
      const start = await this.startingPoint();
      if (!start || !this.mayContinue()) return;
      await this.stream(start);
    } finally {
      clearInterval(renewal);
    }
  }

  private async renewLease(): Promise<void> {
    const held = await this.tryLease();
    if (!held) this.options.logger.warn("writer lease not renewed; stopping corrections");
  }

  private mayContinue(): boolean {
    return !this.stopping && this.lease.held;
  }

  /** Where the stream starts: after the stored token, or after a sweep from the time noted before it. */
  private async startingPoint(): Promise<ChangeStreamOptions | undefined> {
    const stored = this.historyLost ? null : await this.tokens.load();
    if (stored) {
      this.setState("resuming");
      // startAfter, unlike resumeAfter, also resumes past an invalidate event.
      return { startAfter: stored.resumeToken };
    }
    this.setState("sweeping");
    const startAtOperationTime = await currentClusterTime(this.options.db);
    await sweep({
      db: this.options.db,
      rules: this.rules,
      logger: this.options.logger,
      metrics: this.options.metrics,
      correct: (target) => this.correctUntilDone(target),
      shouldStop: () => !this.mayContinue(),
    });
    if (!this.mayContinue()) return undefined;
    this.historyLost = false;
    return { startAtOperationTime };
  }

  private async stream(start: ChangeStreamOptions): Promise<void> {
    const { db, config, metrics, logger } = this.options;
    const stream = db.watch<Document, ProjectedChangeEvent>(buildWatchPipeline(this.rules), {
      ...start,
      fullDocument: "updateLookup",
      maxAwaitTimeMS: this.options.maxAwaitTimeMS ?? 1000,
    });
    this.lastEventClusterSeconds = undefined;
    this.setState("streaming");
    try {
      await consumeEvents({
        stream,
        rules: this.rules,
        concurrency: config.concurrency,
        tokens: this.tokens,
        metrics,
        logger,
        correct: (target) => this.correctUntilDone(target),
        shouldContinue: () => this.mayContinue(),
        persistIntervalMs: this.options.persistIntervalMs ?? 1000,
        onCaughtUp: (caughtUp) => (this.caughtUp = caughtUp),
        onEventProcessed: (clusterTimeSeconds) => {
          this.lastEventClusterSeconds = Math.max(this.lastEventClusterSeconds ?? 0, clusterTimeSeconds);
        },
      });
    } finally {
      this.caughtUp = false;
      // The driver already ignores a failed killCursors here, and the server times an
      // abandoned cursor out by itself; nothing the stream did is undone by this failing.
      await stream.close().catch((err: unknown) => logger.debug({ err }, "closing the change stream failed"));
    }
  }

  /** Seconds the committed corrections lag behind the stream: 0 while caught up; undefined when not streaming. */
  private streamLagSeconds(): number | undefined {
    if (this.state !== "streaming" || !this.lease.held) return undefined;
    if (this.caughtUp) return 0;
    if (this.lastEventClusterSeconds === undefined) return undefined;
    return Math.max(0, Date.now() / 1000 - this.lastEventClusterSeconds);
  }

  /**
   * Retries a failing correction with backoff for as long as we lead: a transient error
   * passes (write conflicts, a stepping-down primary), and while it lasts the event stays
   * unfinished so the token does not pass it. A document the server refuses for good does
   * not get here: correctTarget skips it.
   */
  private async correctUntilDone(target: CorrectionTarget): Promise<Plan> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await correctTarget(this.correction, target);
      } catch (thrown) {
        if (thrown instanceof LeaseLostError || !this.mayContinue()) throw thrown;
        const kind = classify(thrown);
        this.options.metrics.errors.inc({ kind });
        const labels = targetLabels(target);
        this.options.logger.error(
          { err: toError(thrown), kind, ...labels, key: target.id, attempt },
          "correction failed",
        );
        await this.pause(Math.min(30_000, 100 * 2 ** attempt));
      }
    }
  }

  /** Sleeps, but wakes at once when the runner stops. */
  private async pause(ms: number): Promise<void> {
    try {
      await delay(ms, undefined, { signal: this.stopSignal.signal });
    } catch {
      // Aborted by stop(): the caller re-checks `stopping`.
    }
  }
}
