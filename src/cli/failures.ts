// Failures a person running the sidecar can act on, each with one line saying the cause and
// what to do, and its own exit status (README, "Commands"). Anything else exits 1.
import { SidecarError } from "../errors.js";

export const EXIT_STATUS = {
  failed: 1,
  usage: 2,
  unreachable: 3,
  authentication: 4,
  notAuthorised: 5,
  /** An address to listen on (the HTTP endpoints', dev-server's port) cannot be bound. */
  portUnavailable: 6,
  leaseHeld: 7,
  /** Not a failure: `sweep --dry-run` found documents it would change (as `diff` exits 1). */
  changesNeeded: 8,
  /** The deployment is older than the sidecar needs (MongoDB 5.0). */
  serverTooOld: 9,
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
  /** The setting that names the host, when a person chooses it: "http.host". */
  hostSetting?: string;
}

// The system's reasons an address cannot be bound (Node's error `code`), each as the line's
// end after "cannot <purpose>: "; undefined when the target cannot have that problem.
const LISTEN_PROBLEMS: Record<string, (target: ListenTarget) => string | undefined> = {
  EADDRINUSE: ({ host, port, choosePort }) =>
    `port ${port} on ${host} is in use by another process; ${choosePort} a free port, or stop the other process`,
  EACCES: ({ host, port, choosePort }) =>
    `port ${port} on ${host} may not be used by this user; ${choosePort} a free port above 1023`,
  EADDRNOTAVAIL: (target) => hostProblem(target, "is not an address of this machine"),
  // A host name that resolves to nothing (getaddrinfo).
  ENOTFOUND: (target) => hostProblem(target, "does not resolve to an address"),
};

function hostProblem({ host, hostSetting }: ListenTarget, problem: string): string | undefined {
  if (hostSetting === undefined) return undefined;
  return (
    `${host} (${hostSetting}) ${problem}; ` +
    `set ${hostSetting} in the configuration file to one of this machine's addresses, or to 0.0.0.0 for all of them`
  );
}

/** The failure to report when listening on `target` failed with `error`; undefined for other errors. */
export function listenFailure(error: unknown, target: ListenTarget): OperationalError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const problem = typeof code === "string" ? LISTEN_PROBLEMS[code]?.(target) : undefined;
  if (problem === undefined) return undefined;
  const { host, port } = target;
  return new OperationalError(
    `cannot ${target.purpose}: ${problem}`,
    EXIT_STATUS.portUnavailable,
    { host, port },
    {
      cause: error,
    },
  );
}
