import { once } from "node:events";
import { createServer } from "node:net";

/** A loopback port free at the time of asking, for a process that cannot report its own. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === "string") throw new Error("no TCP address for a probe socket");
  return address.port;
}
