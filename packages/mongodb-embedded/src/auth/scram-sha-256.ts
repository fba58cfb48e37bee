// SCRAM-SHA-256 (RFC 7677) as mongod speaks it over saslStart/saslContinue: the stored
// credentials of a user, and the server's side of one conversation. mongod's defaults: a 28-byte
// salt and 15,000 iterations (scramSHA256IterationCount). Of SASLprep only the NFKC
// normalisation is applied, which is all it does to the printable ASCII of most passwords.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

const ITERATIONS = 15_000;
const SALT_BYTES = 28;

export interface ScramCredentials {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest();

export function scramCredentials(password: string): ScramCredentials {
  const salt = randomBytes(SALT_BYTES);
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, ITERATIONS, 32, "sha256");
  return {
    salt,
    iterations: ITERATIONS,
    storedKey: sha256(hmac(salted, "Client Key")),
    serverKey: hmac(salted, "Server Key"),
  };
}

/** `a=1,b=2` into its attributes; a value may itself hold `=` (base64). */
function attributes(message: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of message.split(",")) {
    const at = part.indexOf("=");
    if (at > 0) found.set(part.slice(0, at), part.slice(at + 1));
  }
  return found;
}

/** The client's first message: its gs2 header (no channel binding: "n,,"), user name and nonce. */
export function parseClientFirst(message: string): { user: string; nonce: string; bare: string } | undefined {
  if (!message.startsWith("n,,")) return undefined;
  const bare = message.slice(3);
  const fields = attributes(bare);
  const user = fields.get("n")?.replaceAll("=2C", ",").replaceAll("=3D", "=");
  const nonce = fields.get("r");
  return user && nonce ? { user, nonce, bare } : undefined;
}

/** A conversation after the server's first message, waiting for the client's proof. */
export interface ScramConversation {
  user: string;
  db: string;
  credentials: ScramCredentials;
  nonce: string;
  /** client-first-message-bare "," server-first-message: the start of the AuthMessage. */
  messagesSoFar: string;
}

export function serverFirst(
  client: { user: string; nonce: string; bare: string },
  db: string,
  credentials: ScramCredentials,
): { conversation: ScramConversation; message: string } {
  const nonce = client.nonce + randomBytes(24).toString("base64");
  const message = `r=${nonce},s=${credentials.salt.toString("base64")},i=${credentials.iterations}`;
  return {
    conversation: { user: client.user, db, credentials, nonce, messagesSoFar: `${client.bare},${message}` },
    message,
  };
}

/** The server's final message (its signature) if the client's proof holds, else undefined. */
export function serverFinal(conversation: ScramConversation, clientFinal: string): string | undefined {
  const fields = attributes(clientFinal);
  const proof = fields.get("p");
  if (fields.get("r") !== conversation.nonce || proof === undefined) return undefined;
  const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(",p="));
  const authMessage = `${conversation.messagesSoFar},${withoutProof}`;
  const { storedKey, serverKey } = conversation.credentials;
  const signature = hmac(storedKey, authMessage);
  const proofBytes = Buffer.from(proof, "base64");
  if (proofBytes.length !== signature.length) return undefined;
  const clientKey = Buffer.from(proofBytes.map((byte, i) => byte ^ signature[i]!));
  if (!timingSafeEqual(sha256(clientKey), storedKey)) return undefined;
  return `v=${hmac(serverKey, authMessage).toString("base64")}`;
}
