// The shared position (`changestream:<db>`) while replicas stream by partition: it moves up
// to the oldest position every partition passed, and state records are pruned behind it
// (docs/operations.md, "Positions"). Only the replica streaming partition 0 moves it, as each
// move reads every partition's position: replicas that each moved it when they stored their
// own cost three commands a second per replica. It tries when it stores its own, and, while
// what all passed is short of that, at lease rounds.
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import { isOlder, type PartitionPositions, type PassedByAll } from "./partition-positions.js";
import type { StatePruning } from "./state-pruning.js";
import type { TokenStore } from "./token-store.js";

/**
 * While the shared position is short of this replica's own, how many lease rounds a retry may
 * wait at most, its wait doubling from one round each time nothing moved. An idle replica
 * stores its position once a minute: retried every round, an idle tender sent three commands a
 * second (at `leaseSeconds` 3) to find the same positions again.
 */
const MOST_ROUNDS_BETWEEN_RETRIES = 8;

export interface SharedPositionOptions {
  tokens: Pick<TokenStore, "load" | "advanceTo">;
  positions: Pick<PartitionPositions, "passedByAll" | "behindOwn">;
  pruning: Pick<StatePruning, "positionPersisted">;
  partitions: number;
  logger: Logger;
  metrics: Pick<Metrics, "errors">;
}

export class SharedPositionTender {
  /** The shared position, when last moved, fell short of this replica's own. */
  private behind = false;
  /** Rounds until the next retry, and how many the last wait was. */
  private roundsUntilRetry = 1;
  private retryWaitRounds = 1;
  /** What every partition had passed at the last try (its token's `_data`), to tell whether any moved. */
  private lastPassed: string | undefined;

  constructor(private readonly options: SharedPositionOptions) {}

  /** This replica stored its own partitions' positions: the shared one may move. */
  positionStored(): Promise<void> {
    // Between rounds: the next round is less than a round away, and does not count.
    return this.advance(1);
  }

  /**
   * A lease round: retries while the shared position is short of this replica's own, once its
   * wait is over. An idle stream stores its own only when its token moves, and the partitions
   * that held the shared position back may since have moved on.
   */
  async roundCame(): Promise<void> {
    this.roundsUntilRetry--;
    if (this.behind && this.roundsUntilRetry <= 0) await this.advance(0);
  }

  /**
   * Moves the shared position up to what every partition passed, if that is newer, each
   * partition's position read; the next retry waits `extraRounds` more than its wait.
   */
  private async advance(extraRounds: number): Promise<void> {
    const { tokens, positions, partitions, pruning } = this.options;
    try {
      const shared = await tokens.load();
      const passed = await positions.passedByAll(partitions, shared);
      this.behind = positions.behindOwn(passed);
      this.scheduleRetry(passed, extraRounds);
      // Every partition's position counts the shared one as passed: only a newer one moves it.
      if (!passed || (shared && !isOlder(shared.resumeToken, passed.resumeToken))) return;
      if (!(await tokens.advanceTo(passed.resumeToken, passed.clusterTimeSeconds))) return;
      await pruning.positionPersisted(passed.clusterTimeSeconds);
    } catch (err) {
      // The partitions' own positions are stored; the next one stored (or round) tries again.
      this.behind = true;
      this.roundsUntilRetry = 1 + extraRounds;
      reportError(this.options, err, "could not advance the shared position; will retry");
    }
  }

  private scheduleRetry(passed: PassedByAll | undefined, extraRounds: number): void {
    const passedData = passed === undefined ? undefined : String(passed.resumeToken._data);
    const moved = passedData !== this.lastPassed;
    this.lastPassed = passedData;
    this.retryWaitRounds = moved ? 1 : Math.min(this.retryWaitRounds * 2, MOST_ROUNDS_BETWEEN_RETRIES);
    this.roundsUntilRetry = this.retryWaitRounds + extraRounds;
  }
}
