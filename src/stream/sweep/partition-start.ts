// Where a stream of some partitions starts: the oldest of their starts, each its stored
// position (or the shared one, which every partition passed, where newer), else the time noted
// before its pending sweep, else the shared position; a partition with none of them (a first
// start) begins its sweep now.
// docs/semantics.md, "Sweeps by partition".
import type { ChangeStreamOptions, Db, Document, Timestamp } from "mongodb";
import { isOlder, type PartitionPositions } from "../position/partition-positions.js";
import { timeOrder, tokenClusterTime } from "../position/token-time.js";
import { noteSweepStart, type PartitionSweeps } from "./partition-sweeps.js";

export interface PartitionedStart {
  stream: ChangeStreamOptions;
  /** The partitions among them whose sweep is pending: swept beside the stream. */
  sweeping: number[];
}

type Start = { token: Document } | { time: Timestamp };

export async function partitionedStart(
  db: Db,
  sweeps: PartitionSweeps,
  positions: PartitionPositions,
  partitions: readonly number[],
  shared: Document | undefined,
): Promise<PartitionedStart> {
  const stored = await positions.stored(partitions);
  let pending = await sweeps.pending(partitions);
  const unstarted = partitions.filter((p) => !stored.has(p) && !pending.has(p) && shared === undefined);
  if (unstarted.length > 0) {
    await sweeps.begin(unstarted, await noteSweepStart(db));
    pending = await sweeps.pending(partitions);
  }
  const starts = partitions.map((partition): Start => {
    const token = stored.get(partition);
    // A lead stores only the shared position: a partition's own may be left behind it.
    if (token) return { token: shared && isOlder(token, shared) ? shared : token };
    const sweep = pending.get(partition);
    return sweep ? { time: sweep.clusterTime } : { token: shared! };
  });
  return {
    stream: streamOptions(starts.reduce(olderOf)),
    sweeping: [...pending.keys()].sort((a, b) => a - b),
  };
}

function streamOptions(start: Start): ChangeStreamOptions {
  // startAfter, unlike resumeAfter, also resumes past an invalidate event.
  return "token" in start ? { startAfter: start.token } : { startAtOperationTime: start.time };
}

/** The start that sees more: at a time equal to a token's, the time (it includes that time's events). */
function olderOf(a: Start, b: Start): Start {
  const [timeA, timeB] = [orderOf(a), orderOf(b)];
  if ("token" in a && "token" in b && timeA === timeB) return isOlder(b.token, a.token) ? b : a;
  if (timeA === timeB) return "time" in a ? a : b;
  return timeA < timeB ? a : b;
}

/** A start's cluster time; a token of a format not read counts as the oldest (it sees the most). */
function orderOf(start: Start): bigint {
  if ("time" in start) return timeOrder(start.time);
  const time = tokenClusterTime(start.token);
  return time === undefined ? -1n : timeOrder(time);
}
