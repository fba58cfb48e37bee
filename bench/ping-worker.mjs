// Pings the server from a thread of its own, so that a ping's latency is the server's and not
// the wait of the bench's event loop, which runs the drains' sidecars and their stream reads.
// Plain JavaScript: a worker thread does not inherit the tsx loader of the bench's thread.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";
import { MongoClient } from "mongodb";

const { uri, intervalMs } = workerData;
const client = await MongoClient.connect(uri);
const samples = [];
let running = true;
parentPort.once("message", () => (running = false));
parentPort.postMessage("ready");
while (running) {
  const start = performance.now();
  await client.db("admin").command({ ping: 1 });
  samples.push(performance.now() - start);
  await sleep(intervalMs);
}
await client.close();
parentPort.postMessage(samples);
