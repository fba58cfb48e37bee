// hello / isMaster: we present as the writable primary of a one-node replica set "rs0".
// No topologyVersion: with it the driver's monitor switches to streaming (exhaust) hello.
import { Long, ObjectId, Int32 } from "bson";
import type { Document } from "bson";
import type { CommandHandler } from "./command-context.js";
import type { ServerState } from "../server-state.js";
import { supportedMechanisms } from "./authentication.js";

export const REPLICA_SET_NAME = "rs0";
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");

export const hello: CommandHandler = (request, server) => {
  const client = request.body.client as Document | undefined;
  const appName = (client?.application as Document | undefined)?.name;
  if (typeof appName === "string") request.connection.appName = appName;
  const legacy = request.name.toLowerCase() === "ismaster";
  return {
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    ...(request.body.helloOk !== undefined ? { helloOk: true } : {}),
    setName: REPLICA_SET_NAME,
    setVersion: new Int32(1),
    hosts: [server.address],
    primary: server.address,
    me: server.address,
    secondary: false,
    electionId: ELECTION_ID,
    lastWrite: lastWrite(server),
    maxBsonObjectSize: new Int32(16 * 1024 * 1024),
    maxMessageSizeBytes: new Int32(48_000_000),
    maxWriteBatchSize: new Int32(100_000),
    localTime: new Date(),
    logicalSessionTimeoutMinutes: new Int32(30),
    connectionId: new Int32(request.connection.id),
    minWireVersion: new Int32(0),
    maxWireVersion: new Int32(server.version.maxWireVersion),
    readOnly: false,
    ...supportedMechanisms(request, server),
    ok: 1,
  };
};

function lastWrite(server: ServerState): Document {
  const ts = server.clock.current();
  const date = new Date(ts.high * 1000);
  const opTime = { ts, t: Long.fromNumber(1) };
  return { opTime, lastWriteDate: date, majorityOpTime: opTime, majorityWriteDate: date };
}
