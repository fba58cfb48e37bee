import assert from "node:assert/strict";
import { test } from "node:test";
import { Int32, Long, serialize, deserialize } from "bson";
import { crc32c } from "../../../src/wire/crc32c.js";
import { FrameReader } from "../../../src/wire/frame-reader.js";
import { encodeOpMsg, encodeOpReply, OpCode, parseMessage, readHeader } from "../../../src/wire/message.js";

function header(length: number, requestId: number, opCode: number): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeInt32LE(length, 0);
  bytes.writeInt32LE(requestId, 4);
  bytes.writeInt32LE(0, 8);
  bytes.writeInt32LE(opCode, 12);
  return bytes;
}

function opMsg(flagBits: number, sections: Buffer[], withChecksum = false): Buffer {
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE(flagBits | (withChecksum ? 1 : 0), 0);
  const bodyLength = 16 + 4 + sections.reduce((n, s) => n + s.length, 0) + (withChecksum ? 4 : 0);
  const frame = Buffer.concat([header(bodyLength, 7, OpCode.msg), flags, ...sections]);
  if (!withChecksum) return frame;
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32LE(crc32c(frame), 0);
  return Buffer.concat([frame, checksum]);
}

function bodySection(doc: object): Buffer {
  return Buffer.concat([Buffer.from([0]), serialize(doc)]);
}

function sequenceSection(identifier: string, docs: object[]): Buffer {
  const payload = Buffer.concat([Buffer.from(identifier + "\0"), ...docs.map((d) => serialize(d))]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(payload.length + 4, 0);
  return Buffer.concat([Buffer.from([1]), size, payload]);
}

void test("crc32c of '123456789' is the Castagnoli check value", () => {
  assert.equal(crc32c(Buffer.from("123456789")), 0xe3069283);
});

void test("an OP_MSG body keeps numbers in their BSON types", () => {
  const message = parseMessage(
    opMsg(0, [bodySection({ ping: new Int32(1), n: Long.fromNumber(5), $db: "admin" })]),
  );
  assert.equal(message.kind, "msg");
  assert.equal(message.body.ping._bsontype, "Int32");
  assert.equal(message.body.n._bsontype, "Long");
});

void test("a document sequence is merged into the body under its identifier", () => {
  const frame = opMsg(0, [
    bodySection({ insert: "c", $db: "d" }),
    sequenceSection("documents", [{ a: 1 }, { a: 2 }]),
  ]);
  const message = parseMessage(frame);
  assert.equal(message.kind, "msg");
  assert.deepEqual(
    (message.body.documents as { a: Int32 }[]).map((d) => d.a.value),
    [1, 2],
  );
});

void test("an OP_MSG with a valid checksum is accepted and a corrupted one is refused", () => {
  const frame = opMsg(0, [bodySection({ ping: 1 })], true);
  assert.equal(parseMessage(frame).kind, "msg");
  const corrupted = Buffer.from(frame);
  const at = corrupted.length - 6;
  corrupted.writeUInt8(corrupted.readUInt8(at) ^ 0xff, at);
  assert.throws(() => parseMessage(corrupted), /checksum/);
});

void test("an OP_QUERY handshake yields its query document and namespace", () => {
  const flags = Buffer.alloc(4);
  const name = Buffer.from("admin.$cmd\0");
  const skipReturn = Buffer.alloc(8);
  const query = serialize({ ismaster: 1, helloOk: true });
  const length = 16 + 4 + name.length + 8 + query.length;
  const message = parseMessage(
    Buffer.concat([header(length, 1, OpCode.query), flags, name, skipReturn, query]),
  );
  assert.equal(message.kind, "query");
  assert.equal(message.kind === "query" && message.fullCollectionName, "admin.$cmd");
});

void test("an OP_REPLY carries one document answering the request id", () => {
  const reply = encodeOpReply({ ok: 1 }, 9, 42);
  const parsedHeader = readHeader(reply);
  assert.equal(parsedHeader.opCode, OpCode.reply);
  assert.equal(parsedHeader.responseTo, 42);
  assert.equal(reply.readInt32LE(32), 1);
  assert.deepEqual(deserialize(reply.subarray(36)), { ok: 1 });
});

void test("an encoded OP_MSG parses back to the same body", () => {
  const message = parseMessage(encodeOpMsg({ ok: 1, x: "y" }, 3, 2));
  assert.equal(message.kind === "msg" && message.body.x, "y");
});

void test("frames split across chunks or packed together are cut at their boundaries", () => {
  const a = encodeOpMsg({ n: 1 }, 1, 0);
  const b = encodeOpMsg({ n: 2 }, 2, 0);
  const both = Buffer.concat([a, b]);
  const reader = new FrameReader();
  assert.equal(reader.push(both.subarray(0, 10)).length, 0);
  const frames = reader.push(both.subarray(10));
  assert.equal(frames.length, 2);
  assert.deepEqual(frames[1], b);
});
