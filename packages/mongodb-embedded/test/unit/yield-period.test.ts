// The server's busy commands take their turns one per pass of the event loop, so that a
// connection's next command is read after one busy command's slice, not after every one's.
import assert from "node:assert/strict";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { once } from "node:events";
import { test } from "node:test";
import { waitForTurn } from "../../src/yield-period.js";

const BUSY_COMMANDS = 8;
const TURNS_EACH = 40;

/** An echo server and a client of it, both in this process, as a client's socket is to the server. */
async function echoPair(): Promise<{ client: Socket; close(): Promise<void> }> {
  const server = createServer((socket) => socket.pipe(socket));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
  await once(client, "connect");
  return {
    client,
    async close() {
      client.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

void test("busy commands resume in the order they yielded", async () => {
  const order: string[] = [];
  const busy = async (name: string) => {
    for (let turn = 0; turn < 3; turn++) {
      order.push(`${name}${turn}`);
      await waitForTurn();
    }
  };
  await Promise.all([busy("a"), busy("b"), busy("c")]);
  assert.deepEqual(order, ["a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2"]);
});

void test("a socket's messages are read between two turns, however many commands are busy", async () => {
  const { client, close } = await echoPair();
  let turnsTaken = 0;
  let busyCommandsRunning = BUSY_COMMANDS;
  const busy = async () => {
    for (let turn = 0; turn < TURNS_EACH; turn++) {
      turnsTaken += 1;
      await waitForTurn();
    }
    busyCommandsRunning -= 1;
  };
  // A message goes to the echo server and back (two reads) again and again while they run;
  // the turns taken between one echo and the next are what a client's command waited for.
  const turnsPerEcho: number[] = [];
  let turnsAtSend = 0;
  const echoes = new Promise<void>((resolve) => {
    client.on("data", () => {
      turnsPerEcho.push(turnsTaken - turnsAtSend);
      if (busyCommandsRunning === 0) return resolve();
      turnsAtSend = turnsTaken;
      client.write("ping");
    });
  });
  const commands = Array.from({ length: BUSY_COMMANDS }, busy);
  turnsAtSend = turnsTaken;
  client.write("ping");
  await Promise.all([...commands, echoes]);
  await close();
  assert.ok(turnsPerEcho.length > 10, `echoes while the commands ran: ${turnsPerEcho.length}`);
  // Two reads, each after at most one turn (and one more for the turn under way when sent).
  assert.ok(
    Math.max(...turnsPerEcho) <= 3,
    `turns taken between two echoes, at most 3 of ${BUSY_COMMANDS} busy commands: ${turnsPerEcho.join(", ")}`,
  );
});
