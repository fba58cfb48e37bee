// Failures a person running the sidecar can act on, each with one line saying the cause and
// what to do, and its own exit status (README, "Commands"). Anything else exits 1.
import { SidecarError } from "../errors.js";

export const EXIT_STATUS = {
  failed: 1,
  usage: 2,
  unreachable: 3,
  authentication: 4,
  notAuthorised: 5,
  httpPortUnavailable: 6,
  leaseHeld: 7,
  /** Not a failure: `sweep --dry-run` found documents it would change (as `diff` exits 1). */
  changesNeeded: 8,
} as const;

export type ExitStatus = (typeof EXIT_STATUS)[keyof typeof EXIT_STATUS];

/** An operational failure: its message is the line printed; the JSON log gets the cause. */
export class OperationalError extends SidecarError {
  constructor(
    message: string,
    readonly exitStatus: ExitStatus,
    context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, context, options);
  }
}
