// mongod's test fail points (enableTestCommands), armed with configureFailPoint:
// - failCommand makes the next matching commands fail, hang, drop the connection or report a
//   write concern error;
// - onPrimaryTransactionalWrite acts on each write of a retryable write (lsid + txnNumber, no
//   transaction): it drops the connection (unless closeConnection: false) and, with
//   failBeforeCommitExceptionCode, fails that statement uncommitted;
// - failGetMoreAfterCursorCheckout fails a getMore once its cursor is found, so the error gets
//   the labels mongod's getMore path adds (ResumableChangeStreamError on a change stream).
// Each point counts the times it fired (mongod's timesEntered): configureFailPoint answers
// with the count so far, and waitForFailPoint waits for it to reach a number.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";

export interface FailCommandData {
  failCommands: string[];
  errorCode?: number;
  errorLabels?: string[];
  closeConnection?: boolean;
  blockConnection?: boolean;
  blockTimeMS?: number;
  writeConcernError?: Document;
  appName?: string;
}

export interface TransactionalWriteData {
  /** Drop the connection; the command still runs to its end (mongod's default: true). */
  closeConnection: boolean;
  /** Fail the statement with this code, its write not committed. */
  failBeforeCommitExceptionCode?: number;
}

export interface GetMoreFailureData {
  errorCode: number;
}

type Mode =
  | { kind: "off" }
  | { kind: "alwaysOn" }
  | { kind: "times"; remaining: number }
  | { kind: "skip"; remaining: number };

/** One fail point: its mode and data; each firing consumes one activation. */
class FailPoint<Data> {
  private mode: Mode = { kind: "off" };
  private data: Data | undefined;
  /** Times the point fired since the server started; never reset, as on mongod. */
  private timesEntered = 0;
  private waiters: { times: number; resolve: () => void }[] = [];

  constructor(private readonly parse: (data: unknown) => Data) {}

  /** Sets the mode and data; returns the times entered so far. */
  configure(mode: unknown, data: unknown): number {
    const parsed = parseMode(mode);
    if (parsed.kind !== "off") this.data = this.parse(data);
    this.mode = parsed;
    return this.timesEntered;
  }

  /** Resolves once the point has fired `times` times in all. */
  entered(times: number): Promise<void> {
    if (this.timesEntered >= times) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ times, resolve }));
  }

  /** The data when the point fires for a command `matches` accepts. */
  fire(matches: (data: Data) => boolean = () => true): Data | undefined {
    const fired = this.activate(matches);
    if (fired !== undefined) this.countEntry();
    return fired;
  }

  private activate(matches: (data: Data) => boolean): Data | undefined {
    const data = this.data;
    if (this.mode.kind === "off" || data === undefined || !matches(data)) return undefined;
    switch (this.mode.kind) {
      case "alwaysOn":
        return data;
      case "times":
        this.mode.remaining -= 1;
        if (this.mode.remaining <= 0) this.mode = { kind: "off" };
        return data;
      case "skip":
        if (this.mode.remaining <= 0) return data;
        this.mode.remaining -= 1;
        return undefined;
    }
  }

  private countEntry(): void {
    this.timesEntered += 1;
    const due = this.waiters.filter((waiter) => waiter.times <= this.timesEntered);
    this.waiters = this.waiters.filter((waiter) => waiter.times > this.timesEntered);
    for (const waiter of due) waiter.resolve();
  }
}

export class FailPoints {
  private readonly failCommand = new FailPoint(parseFailCommandData);
  private readonly transactionalWrite = new FailPoint(parseTransactionalWriteData);
  private readonly getMoreAfterCheckout = new FailPoint(parseGetMoreFailureData);

  /** Returns the times the point was entered before (configureFailPoint's `count`). */
  configure(name: unknown, mode: unknown, data: unknown): number {
    return this.pointNamed(name).configure(mode, data);
  }

  /** Resolves once the point named `name` has been entered `times` times since the server started. */
  entered(name: unknown, times: number): Promise<void> {
    return this.pointNamed(name).entered(times);
  }

  /** failCommand's data when it fires for this command (consuming one activation). */
  trigger(command: string, appName: string | undefined): FailCommandData | undefined {
    return this.failCommand.fire(
      (data) =>
        data.failCommands.includes(command) && (data.appName === undefined || data.appName === appName),
    );
  }

  /** onPrimaryTransactionalWrite's data when it fires for one write of a retryable write. */
  triggerTransactionalWrite(): TransactionalWriteData | undefined {
    return this.transactionalWrite.fire();
  }

  /** failGetMoreAfterCursorCheckout's data when it fires for a getMore. */
  triggerGetMore(): GetMoreFailureData | undefined {
    return this.getMoreAfterCheckout.fire();
  }

  private pointNamed(name: unknown): FailPoint<unknown> {
    switch (name) {
      case "failCommand":
        return this.failCommand as FailPoint<unknown>;
      case "onPrimaryTransactionalWrite":
        return this.transactionalWrite as FailPoint<unknown>;
      case "failGetMoreAfterCursorCheckout":
        return this.getMoreAfterCheckout as FailPoint<unknown>;
      default:
        throw new ServerError(ErrorCode.BadValue, "BadValue", `unsupported fail point: ${String(name)}`);
    }
  }
}

function parseMode(mode: unknown): Mode {
  if (mode === "off") return { kind: "off" };
  if (mode === "alwaysOn") return { kind: "alwaysOn" };
  if (mode && typeof mode === "object") {
    const spec = mode as Document;
    if (spec.times !== undefined) {
      const times = Number(spec.times);
      return times > 0 ? { kind: "times", remaining: times } : { kind: "off" };
    }
    if (spec.skip !== undefined) return { kind: "skip", remaining: Number(spec.skip) };
  }
  throw new ServerError(ErrorCode.BadValue, "BadValue", `invalid fail point mode: ${JSON.stringify(mode)}`);
}

function badData(message: string): ServerError {
  return new ServerError(ErrorCode.BadValue, "BadValue", message);
}

function parseFailCommandData(data: unknown): FailCommandData {
  const spec = (data ?? {}) as Document;
  if (!Array.isArray(spec.failCommands)) throw badData("failCommand requires data.failCommands, an array");
  return {
    failCommands: spec.failCommands.map(String),
    errorCode: spec.errorCode === undefined ? undefined : Number(spec.errorCode),
    errorLabels: Array.isArray(spec.errorLabels) ? spec.errorLabels.map(String) : undefined,
    closeConnection: spec.closeConnection === true,
    blockConnection: spec.blockConnection === true,
    blockTimeMS: spec.blockTimeMS === undefined ? 0 : Number(spec.blockTimeMS),
    writeConcernError: spec.writeConcernError as Document | undefined,
    appName: typeof spec.appName === "string" ? spec.appName : undefined,
  };
}

function parseTransactionalWriteData(data: unknown): TransactionalWriteData {
  const spec = (data ?? {}) as Document;
  const code = spec.failBeforeCommitExceptionCode;
  return {
    closeConnection: spec.closeConnection !== false,
    failBeforeCommitExceptionCode: code === undefined ? undefined : Number(code),
  };
}

function parseGetMoreFailureData(data: unknown): GetMoreFailureData {
  const code = (data as Document | undefined)?.errorCode;
  if (code === undefined) throw badData("failGetMoreAfterCursorCheckout requires data.errorCode");
  return { errorCode: Number(code) };
}
