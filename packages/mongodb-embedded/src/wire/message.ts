// MongoDB wire protocol framing: the 16-byte header, OP_QUERY (only for the driver's first
// `ismaster` handshake), OP_REPLY (its answer) and OP_MSG (everything else).
// https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/
import { calculateObjectSize, serialize, type Document } from "bson";
import { crc32c } from "./crc32c.js";
import { decodeDocument } from "./document-decoder.js";
import { MAX_INTERNAL_BSON_BYTES, objectTooLarge } from "../reply-limit.js";

export const OpCode = { reply: 1, query: 2004, compressed: 2012, msg: 2013 } as const;

export const OpMsgFlags = {
  checksumPresent: 1 << 0,
  moreToCome: 1 << 1,
  exhaustAllowed: 1 << 16,
} as const;

const HEADER_SIZE = 16;

export interface MessageHeader {
  messageLength: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export interface OpQueryMessage {
  kind: "query";
  header: MessageHeader;
  fullCollectionName: string;
  query: Document;
}

export interface OpMsgMessage {
  kind: "msg";
  header: MessageHeader;
  flagBits: number;
  /** The kind-0 body with every kind-1 document sequence merged in under its identifier. */
  body: Document;
}

export type IncomingMessage = OpQueryMessage | OpMsgMessage;

export class WireProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireProtocolError";
  }
}

export function readHeader(frame: Uint8Array): MessageHeader {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  return {
    messageLength: view.getInt32(0, true),
    requestId: view.getInt32(4, true),
    responseTo: view.getInt32(8, true),
    opCode: view.getInt32(12, true),
  };
}

/** Parses one complete frame (header included). */
export function parseMessage(frame: Buffer): IncomingMessage {
  const header = readHeader(frame);
  if (header.messageLength !== frame.length) {
    throw new WireProtocolError(`frame of ${frame.length} bytes declares ${header.messageLength}`);
  }
  if (header.opCode === OpCode.msg) return parseOpMsg(frame, header);
  if (header.opCode === OpCode.query) return parseOpQuery(frame, header);
  throw new WireProtocolError(`unsupported opCode ${header.opCode}`);
}

function parseOpQuery(frame: Buffer, header: MessageHeader): OpQueryMessage {
  let offset = HEADER_SIZE + 4; // flags
  const nameEnd = frame.indexOf(0, offset);
  if (nameEnd < 0) throw new WireProtocolError("OP_QUERY collection name is not terminated");
  const fullCollectionName = frame.toString("utf8", offset, nameEnd);
  offset = nameEnd + 1 + 8; // numberToSkip, numberToReturn
  const query = decodeDocument(frame.subarray(offset, offset + frame.readInt32LE(offset)));
  return { kind: "query", header, fullCollectionName, query };
}

function parseOpMsg(frame: Buffer, header: MessageHeader): OpMsgMessage {
  const flagBits = frame.readUInt32LE(HEADER_SIZE);
  let end = frame.length;
  if (flagBits & OpMsgFlags.checksumPresent) {
    end -= 4;
    const expected = frame.readUInt32LE(end);
    if (crc32c(frame.subarray(0, end)) !== expected) throw new WireProtocolError("OP_MSG checksum mismatch");
  }
  let body: Document | undefined;
  const sequences: [string, Document[]][] = [];
  let offset = HEADER_SIZE + 4;
  while (offset < end) {
    const kind = frame[offset++];
    if (kind === 0) {
      const size = frame.readInt32LE(offset);
      body = decodeDocument(frame.subarray(offset, offset + size));
      offset += size;
    } else if (kind === 1) {
      const size = frame.readInt32LE(offset);
      sequences.push(parseDocumentSequence(frame.subarray(offset + 4, offset + size)));
      offset += size;
    } else {
      throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireProtocolError("OP_MSG without a body section");
  for (const [identifier, documents] of sequences) body[identifier] = documents;
  return { kind: "msg", header, flagBits, body };
}

function parseDocumentSequence(section: Buffer): [string, Document[]] {
  const nameEnd = section.indexOf(0);
  if (nameEnd < 0) throw new WireProtocolError("document sequence identifier is not terminated");
  const identifier = section.toString("utf8", 0, nameEnd);
  const documents: Document[] = [];
  let offset = nameEnd + 1;
  while (offset < section.length) {
    const size = section.readInt32LE(offset);
    documents.push(decodeDocument(section.subarray(offset, offset + size)));
    offset += size;
  }
  return [identifier, documents];
}

function encodeHeader(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return header;
}

/**
 * The reply's BSON, or, when it is over mongod's limit, the BSONObjectTooLarge error reply in its
 * place (with the reply's cluster time): the command fails, its connection and the server stay.
 */
function serializeReply(reply: Document): Uint8Array {
  let bytes: Uint8Array | undefined;
  try {
    bytes = serialize(reply);
  } catch (error) {
    // bson throws (a RangeError) past its 17 MiB buffer; anything else is not about size.
    if (calculateObjectSize(reply) <= MAX_INTERNAL_BSON_BYTES) throw error;
  }
  if (bytes !== undefined && bytes.length <= MAX_INTERNAL_BSON_BYTES) return bytes;
  const failure: Document = objectTooLarge(bytes?.length ?? calculateObjectSize(reply), reply).toReply();
  if (reply.$clusterTime !== undefined) failure.$clusterTime = reply.$clusterTime;
  if (reply.operationTime !== undefined) failure.operationTime = reply.operationTime;
  return serialize(failure);
}

/** OP_MSG with a single kind-0 body. */
export function encodeOpMsg(body: Document, requestId: number, responseTo: number, flagBits = 0): Buffer {
  const bytes = serializeReply(body);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32LE(flagBits, 0);
  prefix[4] = 0;
  const length = HEADER_SIZE + prefix.length + bytes.length;
  return Buffer.concat([encodeHeader(length, requestId, responseTo, OpCode.msg), prefix, bytes]);
}

/** OP_REPLY carrying one document: the answer to a legacy OP_QUERY command. */
export function encodeOpReply(document: Document, requestId: number, responseTo: number): Buffer {
  const bytes = serializeReply(document);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(0, 0); // responseFlags
  fields.writeBigInt64LE(0n, 4); // cursorID
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  const length = HEADER_SIZE + fields.length + bytes.length;
  return Buffer.concat([encodeHeader(length, requestId, responseTo, OpCode.reply), fields, bytes]);
}
