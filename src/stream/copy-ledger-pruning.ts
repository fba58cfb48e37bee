// Prunes the copy ledger (src/patterns/common/copy-ledger.ts) as the stream moves on. An
// entry is needed only until the delete its copy may have to undo has been processed, and a
// copy-back is made after that delete (the full set is unique by entry): once every event up
// to cluster time T has been processed, an entry copied before T was copied after any delete
// it could concern, so that delete has been processed too.
//
// Both times are the primary's: `copiedAt` its wall clock ($currentDate), T an event's
// cluster time. They differ a little: a cluster time counts whole seconds, can run ahead of
// the wall clock (gossip from a member whose clock is ahead), and after a failover the new
// primary's clock may lag the old one's. The margin covers that difference; an entry pruned
// too early would only let one copy-back survive, the behaviour without propagation.
import type { Db } from "mongodb";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import { reportError } from "../ops/report-error.js";
import { COPIED_AT } from "../patterns/common/copy-ledger.js";

export const PRUNE_MARGIN_SECONDS = 300;
const PRUNE_INTERVAL_MS = 60_000;

export class CopyLedgerPruning {
  private lastPruneAt = -Infinity;

  constructor(
    private readonly db: Db,
    private readonly stateCollection: string,
    private readonly logger: Logger,
    private readonly metrics: Pick<Metrics, "errors">,
    private readonly intervalMs = PRUNE_INTERVAL_MS,
  ) {}

  /** Called when a position is persisted: at most once per interval, prunes what lies before it. */
  async positionPersisted(clusterTimeSeconds: number): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruneAt < this.intervalMs) return;
    this.lastPruneAt = now;
    const before = new Date((clusterTimeSeconds - PRUNE_MARGIN_SECONDS) * 1000);
    try {
      const { deletedCount } = await this.db
        .collection(this.stateCollection)
        .deleteMany({ [COPIED_AT]: { $lt: before } });
      if (deletedCount > 0) this.logger.debug({ deletedCount, before }, "pruned the copy ledger");
    } catch (err) {
      // The next persisted position tries again; entries kept longer cost only space.
      reportError({ metrics: this.metrics, logger: this.logger }, err, "could not prune the copy ledger", {
        fields: { collection: this.stateCollection, before },
      });
    }
  }
}
