// What every command handler receives: the parsed request, the connection it came on, and the
// server's shared state.
import type { Document } from "bson";
import type { ScramConversation } from "../auth/scram-sha-256.js";
import type { UserName } from "../auth/users.js";
import type { ServerState } from "../server-state.js";
import type { Transaction } from "../sessions/transaction.js";

export interface ConnectionInfo {
  readonly id: number;
  /** From the handshake's client.application.name; failCommand may filter on it. */
  appName: string | undefined;
  /** Aborted when the connection closes, so that a waiting getMore returns. */
  readonly signal: AbortSignal;
  /** Closes the socket without a reply (failCommand closeConnection). */
  destroy(): void;
  /** Who the connection authenticated as (saslContinue), with authentication on. */
  user?: UserName;
  /** A SCRAM conversation between saslStart and saslContinue. */
  scram?: ScramConversation;
}

export interface CommandRequest {
  /** The command name: the first field of the body, as the user spelled it. */
  name: string;
  db: string;
  body: Document;
  connection: ConnectionInfo;
  /** The multi-document transaction the command runs in (autocommit: false), if any. */
  transaction?: Transaction;
  /** Aborts when killSessions kills the command's session; what waits must stop with Interrupted. */
  killed?: AbortSignal;
  /** A retryable write's check before each of its writes commits (onPrimaryTransactionalWrite). */
  beforeWriteCommit?: () => void;
  /** A retryable write's statements an earlier attempt executed (session-registry.ts): skipped. */
  executedStatements?: Map<number, Document>;
}

export type CommandHandler = (request: CommandRequest, server: ServerState) => Promise<Document> | Document;
