// Public entry of the embedded MongoDB-compatible server. Nothing outside src/server/
// imports anything else from it. (Placeholder signature: the foundation issue builds it.)

export interface EmbeddedServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** How many change events the change log keeps before older resume points are lost (286). */
  changeHistoryLimit?: number;
}

export interface EmbeddedServer {
  readonly host: string;
  readonly port: number;
  /** `mongodb://host:port/?replicaSet=rs0` */
  readonly uri: string;
  /** Stops accepting, closes every connection and cursor; idempotent. */
  close(): Promise<void>;
}

export async function startEmbeddedServer(_options: EmbeddedServerOptions = {}): Promise<EmbeddedServer> {
  throw new Error("the embedded server is not built yet");
}
