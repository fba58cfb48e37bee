// mongod's failCommand fail point (enableTestCommands), configured with configureFailPoint:
// it makes the next matching commands fail, hang, drop the connection or report a write
// concern error, so that retry and resume logic can be tested against this server too.
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

type Mode =
  | { kind: "off" }
  | { kind: "alwaysOn" }
  | { kind: "times"; remaining: number }
  | { kind: "skip"; remaining: number };

export class FailPoints {
  private mode: Mode = { kind: "off" };
  private data: FailCommandData | undefined;

  configure(name: unknown, mode: unknown, data: unknown): void {
    if (name !== "failCommand") {
      throw new ServerError(ErrorCode.BadValue, "BadValue", `unsupported fail point: ${String(name)}`);
    }
    this.mode = parseMode(mode);
    if (this.mode.kind !== "off") this.data = parseData(data);
  }

  /** The fail point's data when it fires for this command (consuming one activation). */
  trigger(command: string, appName: string | undefined): FailCommandData | undefined {
    const data = this.data;
    if (this.mode.kind === "off" || !data || !data.failCommands.includes(command)) return undefined;
    if (data.appName !== undefined && data.appName !== appName) return undefined;
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

function parseData(data: unknown): FailCommandData {
  const spec = (data ?? {}) as Document;
  if (!Array.isArray(spec.failCommands)) {
    throw new ServerError(ErrorCode.BadValue, "BadValue", "failCommand requires data.failCommands, an array");
  }
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
