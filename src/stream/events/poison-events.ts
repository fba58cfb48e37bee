// A stream that fails again and again at one position holds a poison event: one the server
// cannot hand over (an event past 16 MiB), or whose handling fails every time. Retrying it
// as it is would stop every correction for good; docs/alerting.md, PatternSidecarPoisonEvents.
import { MongoServerError } from "mongodb";
import { classify } from "../../errors.js";
import { ACCESS_REFUSED_CODES, hasCode } from "../../mongodb-codes.js";

/** How the stream is read from its start: as usual, or narrowed to get past a poison event. */
export type StreamMode = "full" | "narrow";

/** What a failure at a start calls for: the same again, a narrower stream, or a sweep. */
export type Escalation = "retry" | "narrow" | "sweep";

/** Events a narrow stretch reads at most before the full stream takes over again. */
export const NARROW_STRETCH_EVENTS = 1000;

/**
 * Counts the stream's failures where it stands: at the newest event it has read (a stream
 * reopened before it replays up to there). The first is retried as it is; the second reads a
 * stretch with a narrower stream (positionsSet left out); a third, the narrow one failing too,
 * sweeps and streams from a fresh cluster time, as after lost history. An event read past
 * the failures' position forgets them.
 */
export class PoisonEvents {
  /** The cluster time of the newest event read, as a 64-bit number; -1 before any. */
  private newest = -1n;
  private failedAt = -1n;
  private failures = 0;

  /** The cluster time of the newest event read, as MongoDB prints a Timestamp; for the logs. */
  get newestRead(): { t: number; i: number } | undefined {
    return this.newest < 0n
      ? undefined
      : { t: Number(this.newest >> 32n), i: Number(this.newest & 0xffffffffn) };
  }

  /** How to read the stream next. */
  get mode(): StreamMode {
    return this.failures === 2 ? "narrow" : "full";
  }

  /** The stream handed over an event of this cluster time. */
  eventRead(clusterTime: bigint): void {
    if (clusterTime > this.newest) this.newest = clusterTime;
    if (this.failures > 0 && this.newest > this.failedAt) this.failures = 0;
  }

  /** A narrow stretch ended without failing: the next read is a full one again. */
  stretchRead(): void {
    this.failures = 0;
  }

  /** Records the stream's failure; what the next attempt should do. */
  streamFailed(error: unknown): Escalation {
    if (!mayBePoison(error)) return "retry";
    if (this.failures === 0 || this.newest > this.failedAt) {
      this.failedAt = this.newest;
      this.failures = 0;
    }
    this.failures++;
    if (this.failures < 2) return "retry";
    if (this.failures === 2) return "narrow";
    this.failures = 0;
    return "sweep";
  }
}

/** Only the server's refusal can be about an event; a network error or a conflict is not. */
function mayBePoison(error: unknown): boolean {
  if (!(error instanceof MongoServerError) || hasCode(error, ACCESS_REFUSED_CODES)) return false;
  const kind = classify(error);
  return kind === "bad_document" || kind === "fatal";
}
