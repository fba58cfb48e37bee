// Open cursors by id, for getMore and killCursors. Ids are random positive 63-bit numbers, as
// mongod's are, so a stale id from another server run is never mistaken for a live one. As
// mongod does, a cursor idle for longer than cursorTimeoutMillis is killed (unless opened
// with noCursorTimeout), and a later getMore gets CursorNotFound.
import { randomBytes } from "node:crypto";
import { Long } from "bson";
import type { ServerCursor } from "../cursor.js";
import { ServerError, ErrorCode } from "../errors.js";

interface OpenCursor {
  cursor: ServerCursor;
  lastUsedAt: number;
  noTimeout: boolean;
}

export class CursorRegistry {
  private readonly cursors = new Map<bigint, OpenCursor>();

  register(cursor: ServerCursor, noTimeout = false): Long {
    let id: bigint;
    do id = randomBytes(8).readBigUInt64LE() & 0x7fff_ffff_ffff_ffffn;
    while (id === 0n || this.cursors.has(id));
    this.cursors.set(id, { cursor, lastUsedAt: Date.now(), noTimeout });
    return Long.fromBigInt(id);
  }

  /** The cursor, now in use again (its idle time starts over). */
  get(id: bigint): ServerCursor {
    const open = this.cursors.get(id);
    if (!open) throw new ServerError(ErrorCode.CursorNotFound, "CursorNotFound", `cursor id ${id} not found`);
    open.lastUsedAt = Date.now();
    return open.cursor;
  }

  find(id: bigint): ServerCursor | undefined {
    return this.cursors.get(id)?.cursor;
  }

  /** Closes and forgets a cursor; false when it was not open. */
  kill(id: bigint): boolean {
    const open = this.cursors.get(id);
    if (!open) return false;
    this.cursors.delete(id);
    open.cursor.close();
    return true;
  }

  /** Kills the cursors idle for longer than `timeoutMs`. */
  killIdle(timeoutMs: number, now = Date.now()): void {
    for (const [id, open] of [...this.cursors]) {
      if (!open.noTimeout && now - open.lastUsedAt > timeoutMs) this.kill(id);
    }
  }

  closeAll(): void {
    for (const id of [...this.cursors.keys()]) this.kill(id);
  }
}
