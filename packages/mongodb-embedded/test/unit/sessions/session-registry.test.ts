import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Binary } from "bson";
import { SessionRegistry, SESSION_IDLE_LIMIT_MS } from "../../../src/sessions/session-registry.js";
import { LockTable } from "../../../src/sessions/lock-table.js";
import { Catalog } from "../../../src/storage/catalog.js";
import { ClusterClock } from "../../../src/storage/cluster-clock.js";

const lsid = (byte: number) => ({ id: new Binary(Buffer.alloc(16, byte), Binary.SUBTYPE_UUID) });
const registry = () => new SessionRegistry(new Catalog(new ClusterClock(), () => {}), new LockTable());

void describe("SessionRegistry use tracking", () => {
  void it("lists each touched session once, with its last use", () => {
    const sessions = registry();
    sessions.touch(lsid(1), new Date(1000));
    sessions.touch(lsid(2), new Date(2000));
    sessions.touch(lsid(1), new Date(3000));
    assert.deepEqual(
      sessions.list().map((s) => [s.lsid.id.buffer[0], s.lastUse.getTime()]),
      [
        [1, 3000],
        [2, 2000],
      ],
    );
  });

  void it("forgets sessions idle past the logical session timeout", () => {
    const sessions = registry();
    sessions.touch(lsid(1), new Date(0));
    sessions.touch(lsid(2), new Date(SESSION_IDLE_LIMIT_MS));
    sessions.expireIdle(SESSION_IDLE_LIMIT_MS + 1);
    assert.deepEqual(
      sessions.list().map((s) => s.lsid.id.buffer[0]),
      [2],
    );
  });

  void it("keeps an idle session whose transaction is still open", () => {
    const sessions = registry();
    sessions.transactionFor(lsid(1), 1n, true);
    sessions.touch(lsid(1), new Date(0));
    sessions.expireIdle(SESSION_IDLE_LIMIT_MS + 1);
    assert.equal(sessions.list().length, 1);
  });

  void it("drops ended sessions from the list", () => {
    const sessions = registry();
    sessions.touch(lsid(1));
    sessions.endSessions([lsid(1)]);
    assert.deepEqual(sessions.list(), []);
  });
});

void describe("SessionRegistry operation signals", () => {
  void it("killSessions aborts its sessions' running operations, and the operations begun after run on", () => {
    const sessions = registry();
    const running = [sessions.operationSignal(lsid(1)), sessions.operationSignal(lsid(1))];
    const otherSession = sessions.operationSignal(lsid(2));
    sessions.kill([lsid(1)], "killed by a test");
    assert.deepEqual(
      running.map((signal) => signal.aborted),
      [true, true],
    );
    assert.equal(otherSession.aborted, false);
    assert.equal(sessions.operationSignal(lsid(1)).aborted, false);
  });

  void it("shutting down aborts every session's running operations and open transactions", () => {
    const sessions = registry();
    const running = [sessions.operationSignal(lsid(1)), sessions.operationSignal(lsid(2))];
    const transaction = sessions.transactionFor(lsid(3), 1n, true);
    sessions.abortAll();
    assert.deepEqual(
      running.map((signal) => signal.aborted),
      [true, true],
    );
    assert.equal(transaction.state, "aborted");
  });
});
