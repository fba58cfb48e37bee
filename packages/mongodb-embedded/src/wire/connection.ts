// One client socket: frames in, one command at a time (in arrival order), replies out.
// The driver never pipelines on a connection, but moreToCome writes may follow each other.
import type { Socket } from "node:net";
import type { Document } from "bson";
import type { ScramConversation } from "../auth/scram-sha-256.js";
import type { UserName } from "../auth/users.js";
import type { ConnectionInfo } from "../commands/command-context.js";
import { FrameReader } from "./frame-reader.js";
import { encodeOpMsg, encodeOpReply, OpMsgFlags, parseMessage, type IncomingMessage } from "./message.js";

export type CommandRunner = (body: Document, db: string, connection: ConnectionInfo) => Promise<Document>;

let nextResponseId = 1;

export class Connection implements ConnectionInfo {
  readonly id: number;
  appName: string | undefined;
  user: UserName | undefined;
  scram: ScramConversation | undefined;
  private readonly abort = new AbortController();
  private readonly reader = new FrameReader();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly runCommand: CommandRunner,
  ) {
    this.id = id;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => this.abort.abort());
    socket.on("error", () => this.destroy());
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Resolves once the socket has closed. */
  closed(): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    return new Promise((resolve) => this.socket.once("close", () => resolve()));
  }

  destroy(): void {
    this.abort.abort();
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.destroy(); // a corrupt stream cannot be resynchronised: mongod drops the connection too
      return;
    }
    for (const frame of frames) this.queue = this.queue.then(() => this.handleFrame(frame));
  }

  private async handleFrame(frame: Buffer): Promise<void> {
    if (this.signal.aborted) return;
    let message: IncomingMessage;
    try {
      message = parseMessage(frame);
    } catch {
      this.destroy();
      return;
    }
    const reply = await this.execute(message);
    if (reply && !this.signal.aborted) this.socket.write(reply);
  }

  private async execute(message: IncomingMessage): Promise<Buffer | undefined> {
    const responseTo = message.header.requestId;
    if (message.kind === "query") {
      const db = message.fullCollectionName.split(".")[0] ?? "admin";
      const query = message.query.$query ?? message.query;
      const reply = await this.runCommand(query as Document, db, this);
      return encodeOpReply(reply, nextResponseId++, responseTo);
    }
    const db = typeof message.body.$db === "string" ? message.body.$db : "admin";
    const reply = await this.runCommand(message.body, db, this);
    // With moreToCome the client expects no answer (unacknowledged write).
    if (message.flagBits & OpMsgFlags.moreToCome) return undefined;
    return encodeOpMsg(reply, nextResponseId++, responseTo);
  }
}
