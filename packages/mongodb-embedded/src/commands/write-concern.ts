// The write concerns this one-node replica set cannot satisfy, answered as mongod checks them
// against its replica set config (repl_set_config.cpp): the command takes effect, and its reply
// carries a writeConcernError (UnsatisfiableWriteConcern for more nodes than it has,
// UnknownReplWriteConcern for a tag set it does not define).
import type { Document } from "bson";
import { numberValue } from "./command-args.js";

const DATA_BEARING_MEMBERS = 1;

export function unsatisfiableWriteConcern(body: Document): Document | undefined {
  const writeConcern = body.writeConcern as Document | undefined;
  if (!writeConcern || typeof writeConcern !== "object") return undefined;
  const { w } = writeConcern;
  const errInfo = { writeConcern: { w, wtimeout: writeConcern.wtimeout ?? 0, provenance: "clientSupplied" } };
  const nodes = numberValue(w);
  if (nodes !== undefined && nodes > DATA_BEARING_MEMBERS) {
    return {
      code: 100,
      codeName: "UnsatisfiableWriteConcern",
      errmsg: "Not enough data-bearing nodes",
      errInfo,
    };
  }
  if (typeof w === "string" && w !== "majority") {
    return {
      code: 79,
      codeName: "UnknownReplWriteConcern",
      errmsg: `No write concern mode named '${w}' found in replica set configuration`,
      errInfo,
    };
  }
  return undefined;
}
