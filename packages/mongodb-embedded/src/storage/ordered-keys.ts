// An index's keys in index order, so that a scan can seek to its bounds and walk them forwards
// or backwards (mongod's IXSCAN over a B-tree) instead of visiting every document. Keys live
// in blocks of a few hundred, sorted within and across blocks: a seek is two binary searches
// and an insert or removal moves at most one block's entries, whatever the collection's size.
import type { Document } from "bson";
import { compareValues } from "../query/index.js";

/** An index as a scan sees it. */
export interface ScannableIndex {
  name: string;
  keyPattern: Document;
  fields: string[];
  directions: number[];
  unique: boolean;
  multikey: boolean;
  keys: OrderedKeys;
}

export interface IndexEntry {
  /** The key: one value per indexed field. */
  values: unknown[];
  /** The document's key in its collection. */
  docKey: string;
  /** Ties between equal keys go in RecordId order, as in mongod. */
  recordId: number;
}

/** Where a scan stops: `before` holds for the entries ahead of the range, `after` past it. */
export interface KeyRange {
  before(entry: IndexEntry): boolean;
  after(entry: IndexEntry): boolean;
}

const BLOCK_SIZE = 512;

export class OrderedKeys {
  private blocks: IndexEntry[][] = [];

  constructor(private readonly directions: readonly number[]) {}

  compare(a: IndexEntry, b: IndexEntry): number {
    for (let i = 0; i < this.directions.length; i++) {
      const order = compareValues(a.values[i], b.values[i]);
      if (order !== 0) return order * this.directions[i]!;
    }
    return a.recordId - b.recordId;
  }

  insert(entry: IndexEntry): void {
    const last = this.blocks[this.blocks.length - 1];
    if (!last) {
      this.blocks.push([entry]);
      return;
    }
    // Keys often come in ascending order (new ObjectIds, sequence numbers): one comparison
    // with the last key appends them, instead of two binary searches.
    if (this.compare(last[last.length - 1]!, entry) < 0) {
      last.push(entry);
      this.splitIfFull(this.blocks.length - 1);
      return;
    }
    const b = Math.min(
      this.firstBlock((e) => this.compare(e, entry) < 0),
      this.blocks.length - 1,
    );
    const block = this.blocks[b]!;
    block.splice(
      firstIndex(block, (e) => this.compare(e, entry) < 0),
      0,
      entry,
    );
    this.splitIfFull(b);
  }

  private splitIfFull(b: number): void {
    const block = this.blocks[b]!;
    if (block.length > 2 * BLOCK_SIZE)
      this.blocks.splice(b, 1, block.slice(0, BLOCK_SIZE), block.slice(BLOCK_SIZE));
  }

  remove(entry: IndexEntry): void {
    const b = this.firstBlock((e) => this.compare(e, entry) < 0);
    const block = this.blocks[b];
    if (!block) return;
    const i = firstIndex(block, (e) => this.compare(e, entry) < 0);
    if (block[i]?.docKey !== entry.docKey) return;
    block.splice(i, 1);
    if (block.length === 0) this.blocks.splice(b, 1);
  }

  /** The entries of `range` in index order, or in reverse for a backward scan. */
  *scan(range: KeyRange, backward: boolean): Generator<IndexEntry> {
    if (backward) yield* this.scanBackward(range);
    else yield* this.scanForward(range);
  }

  private *scanForward(range: KeyRange): Generator<IndexEntry> {
    const first = this.firstBlock((entry) => range.before(entry));
    for (let b = first; b < this.blocks.length; b++) {
      const block = this.blocks[b]!;
      const start = b === first ? firstIndex(block, (entry) => range.before(entry)) : 0;
      for (let i = start; i < block.length; i++) {
        if (range.after(block[i]!)) return;
        yield block[i]!;
      }
    }
  }

  private *scanBackward(range: KeyRange): Generator<IndexEntry> {
    for (let b = this.firstBlock((entry) => !range.after(entry), true) - 1; b >= 0; b--) {
      const block = this.blocks[b]!;
      for (let i = firstIndex(block, (entry) => !range.after(entry)) - 1; i >= 0; i--) {
        if (range.before(block[i]!)) return;
        yield block[i]!;
      }
    }
  }

  /** The first block whose last entry (first entry, `byFirst`) fails `ahead`. */
  private firstBlock(ahead: (entry: IndexEntry) => boolean, byFirst = false): number {
    return firstIndex(this.blocks, (block) => ahead(byFirst ? block[0]! : block[block.length - 1]!));
  }
}

/** The first position where `ahead` stops holding (it holds for a prefix of `items`). */
function firstIndex<T>(items: readonly T[], ahead: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ahead(items[middle]!)) low = middle + 1;
    else high = middle;
  }
  return low;
}
