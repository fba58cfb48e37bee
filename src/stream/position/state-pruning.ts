// Prunes the records patterns keep in the state collection (PatternDriver.stateRecords) as
// the stream's persisted position moves on; what may go is each pattern's call.
import type { Db } from "mongodb";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { PatternRule, StateRecords } from "../../patterns/driver.js";
import { stateRecordsOf } from "../../patterns/registry.js";

const PRUNE_INTERVAL_MS = 60_000;

export class StatePruning {
  private lastPruneAt = -Infinity;
  private readonly records: StateRecords[];

  constructor(
    private readonly db: Db,
    rules: readonly PatternRule[],
    private readonly stateCollection: string,
    private readonly logger: Logger,
    private readonly metrics: Pick<Metrics, "errors">,
    private readonly intervalMs = PRUNE_INTERVAL_MS,
  ) {
    this.records = stateRecordsOf(rules);
  }

  /**
   * Called when a position is persisted: at most once per interval, prunes what lies before it;
   * nothing for a position of unknown cluster time (an idle stream's post-batch token).
   */
  async positionPersisted(clusterTimeSeconds: number | undefined): Promise<void> {
    const now = Date.now();
    if (clusterTimeSeconds === undefined || this.records.length === 0) return;
    if (now - this.lastPruneAt < this.intervalMs) return;
    this.lastPruneAt = now;
    for (const records of this.records) {
      try {
        const deletedCount = await records.prune(this.db, this.stateCollection, clusterTimeSeconds);
        if (deletedCount > 0)
          this.logger.debug({ deletedCount, records: records.name }, "pruned state records");
      } catch (err) {
        // The next persisted position tries again; records kept longer cost only space.
        reportError({ metrics: this.metrics, logger: this.logger }, err, "could not prune state records", {
          fields: { collection: this.stateCollection, records: records.name, clusterTimeSeconds },
        });
      }
    }
  }
}
