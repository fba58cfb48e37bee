// Open cursors by id, for getMore and killCursors. Ids are random positive 63-bit numbers, as
// mongod's are, so a stale id from another server run is never mistaken for a live one.
import { randomBytes } from "node:crypto";
import { Long } from "bson";
import type { ServerCursor } from "../cursor.js";
import { ServerError, ErrorCode } from "../errors.js";

export class CursorRegistry {
  private readonly cursors = new Map<bigint, ServerCursor>();

  register(cursor: ServerCursor): Long {
    let id: bigint;
    do id = randomBytes(8).readBigUInt64LE() & 0x7fff_ffff_ffff_ffffn;
    while (id === 0n || this.cursors.has(id));
    this.cursors.set(id, cursor);
    return Long.fromBigInt(id);
  }

  get(id: bigint): ServerCursor {
    const cursor = this.cursors.get(id);
    if (!cursor)
      throw new ServerError(ErrorCode.CursorNotFound, "CursorNotFound", `cursor id ${id} not found`);
    return cursor;
  }

  find(id: bigint): ServerCursor | undefined {
    return this.cursors.get(id);
  }

  /** Closes and forgets a cursor; false when it was not open. */
  kill(id: bigint): boolean {
    const cursor = this.cursors.get(id);
    if (!cursor) return false;
    this.cursors.delete(id);
    cursor.close();
    return true;
  }

  closeAll(): void {
    for (const id of [...this.cursors.keys()]) this.kill(id);
  }
}
