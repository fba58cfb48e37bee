// Failures a person running the sidecar can act on, each with one line saying the cause and
// what to do, and its own exit status (README, "Commands"). Anything else exits 1.
import { SidecarError } from "../errors.js";

export const EXIT_STATUS = {
  failed: 1,
  usage: 2,
  unreachable: 3,
  authentication: 4,
  notAuthorised: 5,
  /** A port to listen on (the HTTP endpoints', dev-server's) cannot be bound. */
  portUnavailable: 6,
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

/** An address a command listens on, and what a person changes to pick another. */
export interface ListenTarget {
  /** What could not start: "serve the HTTP endpoints". */
  purpose: string;
  host: string;
  port: number;
  /** Completed by "a free port": "set http.port (SIDECAR_HTTP_PORT) to". */
  choosePort: string;
}

// The system's reasons a port cannot be bound (Node's error `code`), as what follows "port N on HOST".
const PORT_PROBLEMS: Record<string, (target: ListenTarget) => string> = {
  EADDRINUSE: ({ choosePort }) =>
    `is in use by another process; ${choosePort} a free port, or stop the other process`,
  EACCES: ({ choosePort }) => `may not be used by this user; ${choosePort} a free port above 1023`,
};

/** The failure to report when listening on `target` failed with `error`; undefined for other errors. */
export function listenFailure(error: unknown, target: ListenTarget): OperationalError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const problem = typeof code === "string" ? PORT_PROBLEMS[code] : undefined;
  if (!problem) return undefined;
  const { purpose, host, port } = target;
  return new OperationalError(
    `cannot ${purpose}: port ${port} on ${host} ${problem(target)}`,
    EXIT_STATUS.portUnavailable,
    { host, port },
    { cause: error },
  );
}
