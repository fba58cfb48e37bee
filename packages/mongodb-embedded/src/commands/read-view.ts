// The view a read command reads through. With `secondaryLagMs`, a read whose $readPreference
// lets the driver choose a secondary (the driver sends it for every mode but primary) is served
// as a lagging secondary would serve it; a transaction reads from the primary only.
import type { Document } from "bson";
import { ReadView } from "../storage/read-view.js";
import type { ServerState } from "../server-state.js";
import type { CommandRequest } from "./command-context.js";

const SECONDARY_MODES: ReadonlySet<unknown> = new Set(["secondary", "secondaryPreferred", "nearest"]);

export function readViewFor(request: CommandRequest, server: ServerState): ReadView {
  const mode = (request.body.$readPreference as Document | undefined)?.mode;
  const lagged = server.laggedSnapshots;
  if (request.transaction || !lagged || !SECONDARY_MODES.has(mode))
    return server.scope(request.transaction).view;
  return new ReadView(lagged.snapshot());
}
