// Which resume token may be persisted. Events finish out of order (different documents are
// corrected concurrently), but a persisted token promises that everything before it has
// committed, so it may only advance to the last event of the finished prefix. Events held
// behind a slow one are bounded: the consumer stops reading while `held` is at its limit, or
// while what the unfinished events show (their bytes) is at its own.

export class PositionTracker<Token> {
  private nextPosition = 0;
  private lowestUnfinished = 0;
  private readonly unfinished = new Map<number, Token>();
  private readonly finishedEarly = new Map<number, Token>();
  private safe: Token | undefined;
  private readonly releaseWaiters: (() => void)[] = [];
  /** The bytes each unfinished event shows, for those that show any. */
  private readonly shownBy = new Map<number, number>();
  private shown = 0;

  /**
   * Records an event in stream order, with the bytes of what it shows that its corrections
   * hold until they finish; returns its position for `finish`.
   */
  begin(token: Token, shownBytes = 0): number {
    const position = this.nextPosition++;
    this.unfinished.set(position, token);
    if (shownBytes > 0) {
      this.shownBy.set(position, shownBytes);
      this.shown += shownBytes;
    }
    return position;
  }

  /**
   * An event whose corrections were dropped (a hand-over): it stays unfinished, holding the
   * position back for the next owner, but no longer holds what it showed.
   */
  dropShown(position: number): void {
    this.forgetShown(position);
    this.wake();
  }

  private forgetShown(position: number): void {
    const bytes = this.shownBy.get(position);
    if (bytes === undefined) return;
    this.shownBy.delete(position);
    this.shown -= bytes;
  }

  /** Marks an event's corrections as committed (or deliberately skipped). */
  finish(position: number): void {
    const token = this.unfinished.get(position);
    if (token === undefined) throw new RangeError(`position ${position} is not in flight`);
    this.unfinished.delete(position);
    this.forgetShown(position);
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

  /**
   * Resolves once fewer than `limit` events are held and the unfinished ones show fewer than
   * `shownLimit` bytes, or `stop()` says to give up waiting. An event that alone shows more
   * is waited for, not refused: it finishes, and the bytes with it.
   */
  async whenHeldBelow(limit: number, stop: () => boolean, shownLimit: number): Promise<void> {
    while ((this.held >= limit || this.shown >= shownLimit) && !stop())
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
