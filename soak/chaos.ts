// Disturbs the replicas at random (seeded) until a deadline: SIGKILL, SIGTERM (each
// restarted after a short pause) or SIGSTOP then SIGCONT, sometimes past the lease's
// lifetime so that the other replica takes over. One disturbance at a time.
import { setTimeout as delay } from "node:timers/promises";
import type { Prng } from "./prng.js";
import type { Replica } from "./replicas.js";

export interface ChaosTally {
  kills: number;
  terminations: number;
  stops: number;
}

type Action = keyof ChaosTally;
const ACTIONS: Action[] = ["kills", "terminations", "stops"];

async function disturb(replica: Replica, action: Action, prng: Prng, leaseSeconds: number): Promise<void> {
  if (action === "stops") {
    replica.signal("SIGSTOP");
    await delay(prng.int(200, leaseSeconds * 2_500));
    replica.signal("SIGCONT");
    return;
  }
  replica.signal(action === "kills" ? "SIGKILL" : "SIGTERM");
  await replica.waitForExit(15_000);
  await delay(prng.int(100, 2_000));
  await replica.start();
}

export async function runChaos(
  replicas: readonly Replica[],
  prng: Prng,
  until: number,
  leaseSeconds: number,
): Promise<ChaosTally> {
  const tally: ChaosTally = { kills: 0, terminations: 0, stops: 0 };
  for (;;) {
    await delay(prng.int(1_000, 5_000));
    if (Date.now() >= until) return tally;
    const action = prng.pick(ACTIONS);
    await disturb(prng.pick(replicas), action, prng, leaseSeconds);
    tally[action] += 1;
  }
}
