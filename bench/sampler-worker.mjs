// Samples from a thread of its own until told to stop, then posts every sample, in ms:
// - "ping": a ping's latency, intervalMs apart. On a thread of its own, it times the server and
//   not the wait of the bench's event loop, which runs the drains' sidecars and stream reads.
// - "wake-up": how late the thread woke from each sleep of intervalMs. A thread that does
//   nothing else waits only for a core, so this is the machine's stall (a core lent elsewhere,
//   the other processes' load), not the bench's event loop.
// Plain JavaScript: a worker thread does not inherit the tsx loader of the bench's thread.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";
import { MongoClient } from "mongodb";

const { kind, uri, intervalMs } = workerData;
const client = kind === "ping" ? await MongoClient.connect(uri) : undefined;

async function sample() {
  const start = performance.now();
  if (!client) {
    await sleep(intervalMs);
    return Math.max(0, performance.now() - start - intervalMs);
  }
  await client.db("admin").command({ ping: 1 });
  const latency = performance.now() - start;
  await sleep(intervalMs);
  return latency;
}

const samples = [];
let running = true;
parentPort.once("message", () => (running = false));
parentPort.postMessage("ready");
while (running) samples.push(await sample());
await client?.close();
parentPort.postMessage(samples);
