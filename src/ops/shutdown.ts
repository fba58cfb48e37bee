// A stack of cleanups, undone in reverse order of acquisition, each exactly once: whatever
// started gets stopped, and calling close() again returns the same promise.
import { toError } from "../errors.js";

export interface ShutdownStack {
  /** Registers a cleanup; it runs before everything registered earlier. */
  defer(name: string, cleanup: () => unknown): void;
  /** Runs every cleanup, newest first; a failing cleanup does not stop the others. */
  close(): Promise<void>;
  readonly closed: boolean;
}

export interface CleanupFailure {
  name: string;
  error: Error;
}

export function createShutdownStack(onFailure: (failure: CleanupFailure) => void = () => {}): ShutdownStack {
  const cleanups: { name: string; cleanup: () => unknown }[] = [];
  let closing: Promise<void> | undefined;

  async function runAll(): Promise<void> {
    while (cleanups.length > 0) {
      const { name, cleanup } = cleanups.pop()!;
      try {
        await cleanup();
      } catch (thrown) {
        onFailure({ name, error: toError(thrown) });
      }
    }
  }

  return {
    defer(name, cleanup) {
      if (closing) throw new Error(`cannot register cleanup "${name}": shutdown already started`);
      cleanups.push({ name, cleanup });
    },
    close() {
      closing ??= runAll();
      return closing;
    },
    get closed() {
      return closing !== undefined;
    },
  };
}
