// Which resume token may be persisted. Events finish out of order (different documents are
// corrected concurrently), but a persisted token promises that everything before it has
// committed, so it may only advance to the last event of the finished prefix. Events held
// behind a slow one are bounded: the consumer stops reading while `held` is at its limit.

export class PositionTracker<Token> {
  private nextPosition = 0;
  private lowestUnfinished = 0;
  private readonly unfinished = new Map<number, Token>();
  private readonly finishedEarly = new Map<number, Token>();
  private safe: Token | undefined;
  private readonly releaseWaiters: (() => void)[] = [];

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
    this.wake();
  }

  /** Wakes whoever waits in whenHeldBelow, to look again (at a failure, say). */
  wake(): void {
    for (const wake of this.releaseWaiters.splice(0)) wake();
  }

  /** Events begun and not yet behind the safe token: unfinished, or finished after a slower one. */
  get held(): number {
    return this.unfinished.size + this.finishedEarly.size;
  }

  /** Resolves once fewer than `limit` events are held, or `stop()` says to give up waiting. */
  async whenHeldBelow(limit: number, stop: () => boolean): Promise<void> {
    while (this.held >= limit && !stop())
      await new Promise<void>((resolve) => this.releaseWaiters.push(resolve));
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
