// Cuts a TCP byte stream into whole wire-protocol frames, whatever the chunking.
import { WireProtocolError } from "./message.js";

/** mongod's default maxMessageSizeBytes; a larger declared length means a corrupt stream. */
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds bytes and returns every frame now complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      const frame = this.takeFrame();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  private takeFrame(): Buffer | undefined {
    if (this.buffered < 4) return undefined;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [data];
    const length = data.readInt32LE(0);
    if (length < 16 || length > MAX_MESSAGE_SIZE_BYTES) {
      throw new WireProtocolError(`invalid message length ${length}`);
    }
    if (data.length < length) return undefined;
    const frame = data.subarray(0, length);
    const rest = data.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }
}
