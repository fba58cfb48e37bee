// Sleeps 1 ms at a time on a thread of its own and records how late each wake-up came: a
// thread that does nothing else waits only for a core, so its lateness is the machine's (a
// stall of the virtual machine, a core lent elsewhere, the other processes' load), not the
// bench's event loop. Plain JavaScript: a worker thread does not inherit the tsx loader.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";

const { intervalMs } = workerData;
const samples = [];
let running = true;
parentPort.once("message", () => (running = false));
parentPort.postMessage("ready");
while (running) {
  const start = performance.now();
  await sleep(intervalMs);
  samples.push(Math.max(0, performance.now() - start - intervalMs));
}
parentPort.postMessage(samples);
