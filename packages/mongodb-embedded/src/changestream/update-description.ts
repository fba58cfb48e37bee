// updateDescription for update events, computed by diffing the pre- and post-image. mongod
// reports its $v:2 oplog delta: a changed nested field as a dotted path, an element appended to
// an array as "arr.<index>", a shortened array as truncatedArrays plus its changed elements,
// a removed field in removedFields. The delta compares values by their exact BSON (type and
// bytes), so 1 and 1.0 differ. A path an update operator logs as its whole new value (see
// applyLoggedUpdate) is reported whole, as mongod's operators write it into the oplog.
import { BSON, type Document } from "bson";

export interface UpdateDescription {
  updatedFields: Document;
  removedFields: string[];
  truncatedArrays: { field: string; newSize: number }[];
  /** Only with showExpandedEvents: the paths whose dotted form is ambiguous (numeric parts). */
  disambiguatedPaths?: Document;
}

type PathPart = string | number;

/**
 * Walks the two images with one path stack (pushed and popped, not copied per field: most
 * fields and array elements are unchanged, and a backlog's events are diffed one by one).
 */
class DiffCollector {
  readonly description: UpdateDescription = { updatedFields: {}, removedFields: [], truncatedArrays: [] };
  readonly ambiguous: Document = {};
  readonly path: PathPart[] = [];

  constructor(private readonly wholeValuePaths: ReadonlySet<string>) {}

  /** Whether the current path's change is reported as its whole new value. */
  isWholeValue(): boolean {
    return this.wholeValuePaths.size > 0 && this.wholeValuePaths.has(this.path.join("."));
  }

  updated(value: unknown): void {
    this.description.updatedFields[this.dotted()] = value;
  }

  removed(): void {
    this.description.removedFields.push(this.dotted());
  }

  truncated(newSize: number): void {
    this.description.truncatedArrays.push({ field: this.dotted(), newSize });
  }

  /** mongod lists a path in disambiguatedPaths when an array index or a numeric field name is in it. */
  private dotted(): string {
    const path = this.path;
    const dotted = path.join(".");
    const hasNumericPart = path.some((part, i) => i > 0 && (typeof part === "number" || /^\d+$/.test(part)));
    if (hasNumericPart) this.ambiguous[dotted] = path.slice();
    return dotted;
  }
}

/**
 * An update's delta, diffed once when the write happens, as mongod writes its oplog entry:
 * the change log then keeps this rather than both images of every updated document.
 */
export interface RecordedUpdate {
  description: UpdateDescription;
  /** The paths an expanded event lists in disambiguatedPaths. */
  ambiguous: Document;
}

const NO_PATHS: ReadonlySet<string> = new Set();

export function recordUpdate(
  preImage: Document,
  postImage: Document,
  wholeValuePaths: ReadonlySet<string> = NO_PATHS,
): RecordedUpdate {
  const collector = new DiffCollector(wholeValuePaths);
  diffDocuments(preImage, postImage, collector);
  return { description: collector.description, ambiguous: collector.ambiguous };
}

/** The updateDescription of one event: containers of its own, as a stream's pipeline may reshape them. */
export function describeUpdate(
  { description, ambiguous }: RecordedUpdate,
  options: { showExpandedEvents: boolean },
): UpdateDescription {
  const described: UpdateDescription = {
    updatedFields: { ...description.updatedFields },
    removedFields: [...description.removedFields],
    truncatedArrays: description.truncatedArrays.map((truncated) => ({ ...truncated })),
  };
  if (options.showExpandedEvents)
    described.disambiguatedPaths = Object.fromEntries(
      Object.entries(ambiguous).map(([path, parts]) => [path, [...(parts as PathPart[])]]),
    );
  return described;
}

/** True when the update changed nothing: mongod writes no oplog entry, so there is no event. */
export function isEmptyUpdate(description: UpdateDescription): boolean {
  return (
    Object.keys(description.updatedFields).length === 0 &&
    description.removedFields.length === 0 &&
    description.truncatedArrays.length === 0
  );
}

function diffDocuments(before: Document, after: Document, out: DiffCollector): void {
  const path = out.path;
  for (const key of Object.keys(before)) {
    if (Object.hasOwn(after, key)) continue;
    path.push(key);
    out.removed();
    path.pop();
  }
  for (const key of Object.keys(after)) {
    const value = after[key];
    if (unchanged(before[key], value)) continue;
    path.push(key);
    if (!Object.hasOwn(before, key)) out.updated(value);
    else diffValues(before[key], value, out);
    path.pop();
  }
}

function diffArrays(before: unknown[], after: unknown[], out: DiffCollector): void {
  if (after.length < before.length) out.truncated(after.length);
  const path = out.path;
  for (let i = 0; i < after.length; i++) {
    const element = after[i];
    if (i < before.length && unchanged(before[i], element)) continue;
    path.push(i);
    if (i >= before.length) out.updated(element);
    else diffValues(before[i], element, out);
    path.pop();
  }
}

/**
 * The same value, or the same string: decided without a call to bsonEqual (the update shares
 * what it did not change with the pre-image). Numbers go to bsonEqual, as 0 and -0 differ.
 */
function unchanged(before: unknown, after: unknown): boolean {
  return before === after && after !== undefined && typeof after !== "number";
}

function diffValues(before: unknown, after: unknown, out: DiffCollector): void {
  if (bsonEqual(before, after)) return;
  if (out.isWholeValue()) out.updated(after);
  else if (isPlainDocument(before) && isPlainDocument(after)) diffDocuments(before, after, out);
  else if (Array.isArray(before) && Array.isArray(after)) diffArrays(before, after, out);
  else out.updated(after);
}

function isPlainDocument(value: unknown): value is Document {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !("_bsontype" in value);
}

/** Equality of BSON values by type and content; field order counts, as in mongod's binary compare. */
export function bsonEqual(a: unknown, b: unknown): boolean {
  // Object.is keeps 0 and -0 apart: they are different BSON doubles.
  if (a === b) return typeof a !== "number" || Object.is(a, b);
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return typeof a === "number" && Number.isNaN(a) && Number.isNaN(b as number);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => bsonEqual(v, b[i]))
    );
  }
  if (isPlainDocument(a) && isPlainDocument(b)) {
    const keys = Object.keys(a);
    const otherKeys = Object.keys(b);
    return (
      keys.length === otherKeys.length && keys.every((k, i) => k === otherKeys[i] && bsonEqual(a[k], b[k]))
    );
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return sameBsonBytes(a, b as object);
}

function sameBsonBytes(a: object, b: object): boolean {
  const bytesA = BSON.serialize({ v: a });
  const bytesB = BSON.serialize({ v: b });
  return bytesA.length === bytesB.length && bytesA.every((byte, i) => byte === bytesB[i]);
}
