// Reads one change stream and turns its events into corrections: concurrently for different
// documents, in order for the same one, with back-pressure on the stream. The resume token
// is persisted only up to the last event whose corrections have all committed, and, while
// the stream is idle, the post-batch token, so that an idle stream's position stays inside
// the oplog window: at a slower pace, as each write of the position is itself a write to the
// oplog that moves the post-batch token on, and so would always find a newer one to write.
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { BSON } from "mongodb";
import { StreamInvalidatedError } from "../../errors.js";
import type { ChangeStream, Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { Plan } from "../../patterns/plan.js";
import { driverOf } from "../../patterns/registry.js";
import { KeyedTaskQueue, TaskAbandonedError } from "./key-queue.js";
import { PositionTracker } from "../position/position-tracker.js";
import {
  targetKey,
  ruleLabels,
  rulesOf,
  targetsForEvent,
  type CorrectionTarget,
  type ProjectedChangeEvent,
} from "./targets.js";
import type { TokenStore } from "../position/token-store.js";
import { MAX_SHOWN_BYTES, NAMESPACE_EVENTS } from "./watch-pipeline.js";

export interface EventConsumerOptions {
  stream: ChangeStream<Document, ProjectedChangeEvent>;
  rules: readonly PatternRule[];
  /** How many targets may be queued or correcting at once (different documents). */
  inFlight: number;
  /** How many corrections may be queued or running before the stream is read further; four times `inFlight` by default. */
  readAhead?: number;
  /**
   * How many bytes the entries unfinished events show (positionsSet, up to MAX_SHOWN_BYTES
   * each, watch-pipeline.ts) may add up to before the stream is read further;
   * READ_AHEAD_SHOWN_BYTES by default. The count alone let 2,048 events of megabyte pushes
   * queue gigabytes.
   */
  readAheadBytes?: number;
  tokens: Pick<TokenStore, "persistResumeToken">;
  metrics: Metrics;
  logger: Logger;
  /** Corrects one target, retrying as it sees fit; rejects only when the event must stay unfinished. */
  correct: (target: CorrectionTarget) => Promise<Plan>;
  /**
   * The targets this replica corrects (its partitions', key-ownership.ts); every one when
   * absent. An event may also name others' targets, which their owners correct.
   */
  owns?: (target: CorrectionTarget) => boolean;
  /** True for the events of the sidecar's own corrections (own-writes.ts): nothing to correct. */
  isOwnWrite: (event: ProjectedChangeEvent) => boolean;
  /** False once the consumer must stop (shutdown, lost lease). */
  shouldContinue: () => boolean;
  /**
   * Aborted when the stream is handed over (its partitions change hands, it restarts with
   * another filter): corrections not started yet are dropped, and the position stays before
   * their events, for whoever streams them next; those running commit first. Without it, or
   * when the consumer stops otherwise, every correction queued is made before it ends.
   */
  handOver?: AbortSignal;
  onCaughtUp: (caughtUp: boolean) => void;
  /** Called for each event read, with its cluster time as a 64-bit number. */
  onEventRead?: (clusterTime: bigint) => void;
  /** Called once all corrections of an event have committed, with its cluster time in seconds. */
  onEventProcessed: (clusterTimeSeconds: number) => void;
  /**
   * Called after a resume token is persisted, with the cluster time in seconds of the newest
   * event it covers (every event up to it has been processed), when that is known: an idle
   * stream's post-batch token covers no event.
   */
  onPositionPersisted?: (clusterTimeSeconds: number | undefined) => Promise<void>;
  /** A drop or rename in the database, awaited before the next event. */
  onNamespaceEvent: (event: ProjectedChangeEvent) => Promise<void>;
  /** How often the position is written while events are processed. */
  persistIntervalMs: number;
  /** How often it is written when no event was processed since the last write: only the post-batch token moved. */
  idlePersistIntervalMs: number;
  /** A stretch (poison-events.ts): at most this many events, and only until caught up. */
  stretch?: { maxEvents: number };
}

// Events of other documents finish while a slow one holds the token back; past this many the
// stream is not read further, so memory stays bounded until the slow one finishes or is parked.
const MAX_HELD_EVENTS = 10_000;

/** EventConsumerOptions.readAheadBytes' default: sixteen events each showing MAX_SHOWN_BYTES. */
export const READ_AHEAD_SHOWN_BYTES = 16 * MAX_SHOWN_BYTES;

/** The BSON bytes of the entries an event shows; 0 for one that shows none. */
function shownBytes(event: ProjectedChangeEvent): number {
  return event.positionsSet ? BSON.calculateObjectSize({ positionsSet: event.positionsSet }) : 0;
}

/** Why corrections not started are dropped (EventConsumerOptions.handOver). */
const HANDED_OVER = "the stream was handed over";

export async function consumeEvents(options: EventConsumerOptions): Promise<void> {
  const consumer = new EventConsumer(options);
  await consumer.run();
}

/** A resume token, and the cluster time in seconds of the event it stands for (when known). */
interface Position {
  token: Document;
  seconds: number | undefined;
}

class EventConsumer {
  private readonly tracker = new PositionTracker<Position>();
  private readonly queue: KeyedTaskQueue;
  private failure: unknown;
  private lastPersistedToken: string | undefined;
  private lastPersistAt = 0;
  /** Whether an event was processed since the position was last written (else the stream idles). */
  private processedSincePersist = false;
  /** The position's write in flight, if any: one at a time, so positions are stored in order. */
  private persisting: Promise<void> | undefined;
  /** The cluster time of the newest event read: covered by the stream's own token once nothing is in flight. */
  private newestSeconds: number | undefined;
  /** Corrections waiting, outside the key queue, for their key's writes to settle (correctAroundSettling). */
  private readonly settling = new Set<Promise<Plan>>();
  /** Per key whose driver asks corrections to settle (settleMs), the newest write its events reported. */
  private readonly newestWriteAt = new Map<string, number>();

  constructor(private readonly options: EventConsumerOptions) {
    this.queue = new KeyedTaskQueue(options.inFlight);
  }

  async run(): Promise<void> {
    const { stream, shouldContinue, inFlight, stretch, handOver } = this.options;
    const readAhead = this.options.readAhead ?? inFlight * 4;
    const readAheadBytes = this.options.readAheadBytes ?? READ_AHEAD_SHOWN_BYTES;
    const abandonQueued = () => this.queue.abandon(HANDED_OVER);
    if (handOver?.aborted) abandonQueued();
    // Every correction waiting for its writes to settle listens to it too, however many.
    if (handOver) setMaxListeners(0, handOver);
    handOver?.addEventListener("abort", abandonQueued);
    let read = 0;
    try {
      while (shouldContinue() && this.failure === undefined && read < (stretch?.maxEvents ?? Infinity)) {
        const event = await stream.tryNext();
        if (event) {
          read++;
          if (event.clusterTime) this.options.onEventRead?.(event.clusterTime.toBigInt());
          this.options.onCaughtUp(false);
          if (NAMESPACE_EVENTS.includes(event.operationType)) await this.options.onNamespaceEvent(event);
          this.dispatch(event);
          // The server closes the stream after an invalidate; it restarts after this event.
          if (event.operationType === "invalidate")
            this.failure ??= new StreamInvalidatedError("change stream invalidated", { ns: event.ns });
          await this.queue.whenBelow(readAhead);
          await this.tracker.whenHeldBelow(MAX_HELD_EVENTS, () => this.failure !== undefined, readAheadBytes);
        } else {
          // An empty batch: the server has nothing newer for us, so nothing lags behind.
          this.options.onCaughtUp(this.queue.pending === 0 && this.settling.size === 0);
          if (stretch) break;
        }
        this.persistWhenDue();
      }
    } finally {
      // Finish what is in flight before giving the position up: stopping must not leave a
      // committed correction behind an unpersisted token, nor a token ahead of a correction.
      await Promise.allSettled([...this.settling]);
      await this.queue.idle();
      handOver?.removeEventListener("abort", abandonQueued);
      await this.persisting;
      await this.persistPosition();
    }
    if (this.failure !== undefined) throw this.failure;
  }

  private dispatch(event: ProjectedChangeEvent): void {
    const { metrics, rules, isOwnWrite, owns } = this.options;
    const received = isOwnWrite(event) ? [] : targetsForEvent(rules, event);
    for (const rule of rulesOf(received)) metrics.eventsReceived.inc(ruleLabels(rule));
    const targets = owns ? received.filter(owns) : received;
    const seconds = event.clusterTime?.getHighBitsUnsigned();
    this.newestSeconds = seconds ?? this.newestSeconds;
    const position = this.tracker.begin({ token: event._id, seconds }, shownBytes(event));
    // Counted per event, outside the task: events that joined one correction all led to it.
    const actedOn = new Set<PatternRule>();
    const corrections = targets.map(async (target) => {
      const plan = await this.enqueue(target, event.wallTime);
      if (plan.outcome === "writes") actedOn.add(target.rule);
    });
    Promise.all(corrections).then(
      () => {
        for (const rule of actedOn) metrics.eventsActedOn.inc(ruleLabels(rule));
        this.tracker.finish(position);
        this.processedSincePersist = true;
        if (seconds !== undefined) this.options.onEventProcessed(seconds);
      },
      (error: unknown) => {
        // Dropped at a hand-over: unfinished, the event holds the position back for the next owner.
        if (error instanceof TaskAbandonedError) {
          this.tracker.dropShown(position);
          return;
        }
        this.failure ??= error;
        this.tracker.wake();
      },
    );
  }

  /**
   * A target with a detail (a delete to propagate) carries what no later correction can read
   * again: it neither joins a waiting correction of its key nor is joined by a later one. A
   * joined target loses what its event showed (`shown`): it no longer tells the whole story.
   */
  private enqueue(target: CorrectionTarget, wallTime: Date | undefined): Promise<Plan> {
    const key = targetKey(target);
    const settleMs = driverOf(target.rule).planning.settleMs?.(target.rule) ?? 0;
    const writtenAt = wallTime?.getTime();
    if (settleMs === 0 || writtenAt === undefined) return this.queueCorrection(target, key, noWait);
    this.newestWriteAt.set(key, Math.max(writtenAt, this.newestWriteAt.get(key) ?? writtenAt));
    const settled = () => this.settle(key, settleMs, writtenAt);
    if (this.isSettled(key, settleMs, writtenAt)) return this.queueCorrection(target, key, settled);
    const corrected = this.correctAroundSettling(target, key, settled, () =>
      this.forgetWhenSettled(key, settleMs, writtenAt),
    );
    this.settling.add(corrected);
    const forget = () => this.settling.delete(corrected);
    corrected.then(forget, forget);
    return corrected;
  }

  /** Queues the target's correction, which starts once `settled` resolves. */
  private queueCorrection(
    target: CorrectionTarget,
    key: string,
    settled: () => Promise<void>,
  ): Promise<Plan> {
    let current = target;
    const correct = async () => {
      await settled();
      return this.options.correct(current);
    };
    if (target.detail !== undefined) return this.queue.run(key, correct);
    return this.queue.runOrJoin(key, correct, () => (current = withoutShown(target)));
  }

  /**
   * A correction whose key's newest write is not settled yet: what needs no wait at once (the
   * driver is told: `unsettled`), the rest once the writes settled. The wait is outside the
   * key's queue, so that a later write's own early correction is not held behind it. An early
   * correction that joins a waiting full one is served by it, which waits in its turn
   * (queueCorrection) for the writes it was joined for to settle. When the early one left
   * nothing for later (Plan.leavesNothing), the event is done: the key's later writes have
   * corrections of their own.
   */
  private async correctAroundSettling(
    target: CorrectionTarget,
    key: string,
    settled: () => Promise<void>,
    skipWait: () => void,
  ): Promise<Plan> {
    const early = await this.queueCorrection({ ...target, unsettled: true }, key, noWait);
    if (early.outcome !== "skip" && early.leavesNothing) {
      skipWait();
      return early;
    }
    await settled();
    const plan = await this.queueCorrection(target, key, settled);
    return plan.outcome === "none" ? early : plan;
  }

  /**
   * What settle() does to the key's newest write once it is settled, without waiting for it:
   * later events of the key still wait for this write, as the entry stays until then.
   */
  private forgetWhenSettled(key: string, settleMs: number, writtenAt: number): void {
    const forget = () => {
      const remaining = this.settleRemainingMs(key, settleMs, writtenAt);
      if (remaining > 0) setTimeout(forget, remaining).unref();
      else this.forgetIfSettled(key, settleMs, writtenAt);
    };
    forget();
  }

  /** Whether settle() would return at once. */
  private isSettled(key: string, settleMs: number, writtenAt: number): boolean {
    return this.settleRemainingMs(key, settleMs, writtenAt) <= 0;
  }

  private settleRemainingMs(key: string, settleMs: number, writtenAt: number): number {
    const settledAt = (this.newestWriteAt.get(key) ?? writtenAt) + settleMs;
    return Math.min(settledAt, writtenAt + 2 * settleMs) - Date.now();
  }

  /**
   * Waits until the key's newest reported write is `settleMs` old, or its own event's twice
   * that (a document written without pause is still corrected). The events are read before
   * their corrections start, so a write of the key that came a moment later usually extends
   * the wait; the primary's and this host's clocks are taken to agree.
   */
  private async settle(key: string, settleMs: number, writtenAt: number): Promise<void> {
    for (;;) {
      const remaining = this.settleRemainingMs(key, settleMs, writtenAt);
      if (remaining > 0) {
        await this.sleepUnlessHandedOver(remaining);
        continue;
      }
      this.forgetIfSettled(key, settleMs, writtenAt);
      return;
    }
  }

  /** A hand-over ends a wait for writes to settle, and drops the correction after it. */
  private async sleepUnlessHandedOver(ms: number): Promise<void> {
    const { handOver } = this.options;
    const handedOver = () => new TaskAbandonedError(HANDED_OVER);
    if (handOver?.aborted) throw handedOver();
    await sleep(ms, undefined, { signal: handOver }).catch((error: unknown) => {
      throw handOver?.aborted ? handedOver() : error;
    });
  }

  /** A newer write still settling is forgotten by its own correction, which waits for it. */
  private forgetIfSettled(key: string, settleMs: number, writtenAt: number): void {
    if ((this.newestWriteAt.get(key) ?? writtenAt) + settleMs <= Date.now()) this.newestWriteAt.delete(key);
  }

  /** The newest position that covers only committed work: the stream's own when nothing is in flight. */
  private safePosition(): Position | undefined {
    const streamToken = this.options.stream.resumeToken;
    if (this.tracker.inFlight === 0 && this.queue.pending === 0 && streamToken)
      return { token: streamToken, seconds: this.newestSeconds };
    return this.tracker.safeToken;
  }

  /**
   * Persists the position once per interval, beside the reading: the next events are read and
   * corrected while the write is in flight. Awaited, it held every event behind a round trip
   * to the token store each second (and behind the copy ledger's prune each minute).
   */
  private persistWhenDue(): void {
    const { persistIntervalMs, idlePersistIntervalMs } = this.options;
    const intervalMs = this.processedSincePersist ? persistIntervalMs : idlePersistIntervalMs;
    if (this.persisting || Date.now() - this.lastPersistAt < intervalMs) return;
    this.persisting = this.persistPosition().then(
      () => {
        this.persisting = undefined;
      },
      (error: unknown) => {
        this.persisting = undefined;
        this.failure ??= error;
      },
    );
  }

  private async persistPosition(): Promise<void> {
    const now = Date.now();
    const position = this.safePosition();
    const printed = position && BSON.EJSON.stringify(position.token, { relaxed: false });
    if (!position || printed === this.lastPersistedToken) return;
    this.lastPersistAt = now;
    // Events finished while the write is in flight set it again: they are not in this position.
    const processed = this.processedSincePersist;
    this.processedSincePersist = false;
    try {
      await this.options.tokens.persistResumeToken(position.token, position.seconds);
      this.lastPersistedToken = printed;
    } catch (err) {
      // Retried at the pace the position was due at, not the idle one.
      this.processedSincePersist ||= processed;
      reportError(this.options, err, "could not persist the resume token; will retry", { level: "error" });
      return;
    }
    await this.options.onPositionPersisted?.(position.seconds);
  }
}

const noWait = () => Promise.resolve();

function withoutShown({ shown: _, ...target }: CorrectionTarget): CorrectionTarget {
  return target;
}
