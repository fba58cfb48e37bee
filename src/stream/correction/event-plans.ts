// Which corrections start from a plan their change event alone makes (PatternDriver.planFromEvent)
// rather than from a read: those of documents this sidecar has not corrected yet. An event
// shows what the application wrote, not what an earlier correction left elsewhere (the
// overflow chunk of a source whose extras moved before): the guess would assume it absent,
// fail in its transaction, and cost one more. The keys corrected are remembered up to a bound,
// the oldest forgotten first; a forgotten one costs at most one failed guess.
import type { Plan } from "../../patterns/plan.js";
import { driverOf } from "../../patterns/registry.js";
import { targetKey, type CorrectionTarget } from "../events/targets.js";

/** Keys remembered: a few MiB of strings, enough for the documents of a busy stretch. */
const CORRECTED_KEYS_MAX = 50_000;

export class EventPlans {
  private readonly corrected = new Set<string>();

  constructor(private readonly capacity = CORRECTED_KEYS_MAX) {}

  /** The plan the target's event alone makes, unless its document was corrected before. */
  guess(target: CorrectionTarget): Plan | undefined {
    if (target.shown === undefined || this.corrected.has(targetKey(target))) return undefined;
    return driverOf(target.rule).planning.planFromEvent?.(target.rule, target);
  }

  /** Notes a committed plan: once a target's correction wrote, its events are planned from reads. */
  noteOutcome(target: CorrectionTarget, plan: Plan): void {
    if (plan.outcome !== "writes") return;
    const key = targetKey(target);
    this.corrected.delete(key);
    this.corrected.add(key);
    if (this.corrected.size > this.capacity) this.corrected.delete(this.corrected.values().next().value!);
  }
}
