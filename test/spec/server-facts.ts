// What the deployment under test presents itself as, read once through the internal client:
// version from buildInfo's versionArray, topology from hello, parameters from getParameter.
import type { Document, MongoClient } from "mongodb";
import type { ServerFacts, Topology } from "./requirements.js";
import type { Version } from "./schema-version.js";

export async function discoverServerFacts(client: MongoClient, uri: string): Promise<ServerFacts> {
  const admin = client.db("admin");
  const buildInfo = await admin.command({ buildInfo: 1 });
  const versionArray = (buildInfo.versionArray as unknown[] | undefined)?.slice(0, 3).map(Number);
  const version = (versionArray ?? String(buildInfo.version).split(".").map(Number)) as Version;
  const hello = await admin.command({ hello: 1 });
  const parameters = new Map<string, Promise<unknown>>();
  const serverParameter = (name: string) => {
    if (!parameters.has(name)) parameters.set(name, fetchParameter(client, name));
    return parameters.get(name)!;
  };
  const mechanisms = await serverParameter("authenticationMechanisms");
  return {
    version,
    topology: topologyOf(hello, uri),
    auth: /^mongodb(\+srv)?:\/\/[^/@]+@/.test(uri),
    serverless: false,
    // The installed driver has no libmongocrypt (mongodb-client-encryption is not a dependency).
    csfle: false,
    authMechanisms: Array.isArray(mechanisms) ? mechanisms.map(String) : [],
    serverParameter,
  };
}

function topologyOf(hello: Document, uri: string): Topology {
  if (/[?&]loadBalanced=true/i.test(uri)) return "load-balanced";
  if (hello.msg === "isdbgrid") return "sharded";
  if (hello.setName !== undefined) return "replicaset";
  return "single";
}

/** A parameter's value, or undefined when the server does not know it (the requirement then fails). */
async function fetchParameter(client: MongoClient, name: string): Promise<unknown> {
  try {
    const reply = await client.db("admin").command({ getParameter: 1, [name]: 1 });
    return reply[name];
  } catch {
    return undefined;
  }
}
