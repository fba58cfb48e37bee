// A signal that aborts when either of two does, for one operation. Not AbortSignal.any: Node
// (20, at least) keeps each signal it returns registered on its sources until they abort, even
// after it is collected. On a connection that lives for hours, where every getMore would add
// one, the registry grows without bound, and the connection's close then walks all of it on
// the server's only thread while every client waits.
export interface EitherSignal {
  signal: AbortSignal;
  /** Detaches from both sources; call when the operation ends. */
  release(): void;
}

export function eitherSignal(first: AbortSignal, second: AbortSignal): EitherSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const release = () => {
    first.removeEventListener("abort", abort);
    second.removeEventListener("abort", abort);
  };
  if (first.aborted || second.aborted) controller.abort();
  else {
    first.addEventListener("abort", abort, { once: true });
    second.addEventListener("abort", abort, { once: true });
  }
  return { signal: controller.signal, release };
}
