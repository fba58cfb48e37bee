// Which resume token may be persisted. Events finish out of order (different documents are
// corrected concurrently), but a persisted token promises that everything before it has
// committed, so it may only advance to the last event of the finished prefix.

export class PositionTracker<Token> {
  private nextPosition = 0;
  private lowestUnfinished = 0;
  private readonly unfinished = new Map<number, Token>();
  private readonly finishedEarly = new Map<number, Token>();
  private safe: Token | undefined;

  /** Records an event in stream order; returns its position for `finish`. */
  begin(token: Token): number {
    const position = this.nextPosition++;
    this.unfinished.set(position, token);
    return position;
  }

  /** Marks an event's corrections as committed (or deliberately skipped). */
  finish(position: number): void {
    const token = this.unfinished.get(position);
    if (token === undefined) throw new RangeError(`position ${position} is not in flight`);
    this.unfinished.delete(position);
    this.finishedEarly.set(position, token);
    while (this.finishedEarly.has(this.lowestUnfinished)) {
      this.safe = this.finishedEarly.get(this.lowestUnfinished);
      this.finishedEarly.delete(this.lowestUnfinished);
      this.lowestUnfinished += 1;
    }
  }

  /** Events begun and not yet finished. */
  get inFlight(): number {
    return this.unfinished.size;
  }

  /** The newest token every earlier event has finished before; undefined until one has. */
  get safeToken(): Token | undefined {
    return this.safe;
  }
}
