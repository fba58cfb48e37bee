// The replicas bench's throttled server (bench/server-throttle.ts): the REPLICAS entries it
// reads, their names, and a process really held still for its share of the time.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { processCpuMs } from "../../../bench/process-cpu.js";
import { parseReplicaRun, replicaRunName, throttleProcess } from "../../../bench/server-throttle.js";

void test("a count, or a count with the server's share of time", () => {
  assert.deepEqual(parseReplicaRun("4"), { replicas: 4 });
  assert.deepEqual(parseReplicaRun(" 1@33% "), { replicas: 1, serverShare: 0.33 });
  assert.equal(replicaRunName({ replicas: 4 }), "N=4");
  assert.equal(replicaRunName({ replicas: 1, serverShare: 0.33 }), "N=1 (server 33%)");
});

void test("anything else names the entry and the forms expected", () => {
  for (const text of ["", "0", "two", "1@0%", "1@101%", "1@33", "-1"])
    assert.throws(
      () => parseReplicaRun(text),
      (err: Error) => {
        assert.match(err.message, /^REPLICAS: /);
        assert.ok(err.message.includes(`"${text}"`), err.message);
        assert.match(err.message, /"1@33%"/);
        return true;
      },
    );
});

void test("a throttled process runs about its share of the time, and fully once released", async (t) => {
  if (processCpuMs(process.pid) === undefined) return t.skip("no /proc: CPU time cannot be read here");
  const busy = spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" });
  t.after(() => busy.kill("SIGKILL"));
  await sleep(200);
  const cpuOver = async (ms: number) => {
    const before = processCpuMs(busy.pid)!;
    await sleep(ms);
    return processCpuMs(busy.pid)! - before;
  };
  const unthrottle = throttleProcess(busy.pid, 0.25);
  const throttled = await cpuOver(1500);
  unthrottle();
  const released = await cpuOver(1500);
  // A quarter of 1.5 s is 375 ms; the loop alone takes nearly all of it once released. The
  // bounds are wide for a shared machine, and still far apart.
  assert.ok(throttled < 800, `throttled: ${throttled} ms of CPU in 1.5 s`);
  assert.ok(released > throttled * 1.5, `released: ${released} ms, throttled: ${throttled} ms`);
  busy.kill("SIGKILL");
  await once(busy, "exit");
});
