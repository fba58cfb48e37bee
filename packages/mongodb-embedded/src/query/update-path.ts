// Resolving an update's target path in a document: plain fields, numeric array indexes, the
// positional `$` (the array element the query matched), `$[]` (every element) and
// `$[<identifier>]` (the elements an arrayFilter selects). Intermediate documents are created
// for writes; a path through a scalar is not viable (28), as in mongod.
// Copy on write: the document being updated starts as a shallow copy of a stored version, and
// each embedded document or array on a resolved path is copied before the update can write
// into it, so the parts it leaves alone stay shared with the (never mutated) stored version.
import { isPlainDocument } from "./bson-types.js";
import { shallowCopy } from "./document-copy.js";
import { removeField, setField } from "@pattern-sidecar/bson-field-order";
import { isArrayIndex } from "./filter-path.js";
import { queryError } from "./query-error.js";

export type Container = Record<string, unknown> | unknown[];

export interface PathResolution {
  /** Element predicates by arrayFilter identifier. */
  readonly arrayFilters: ReadonlyMap<string, (element: unknown) => boolean>;
  /** The index of the array element the query matched, for `$`. */
  readonly positionalIndex?: number;
  /** true for writes ($set, $push...): create missing documents and pad arrays. */
  readonly create: boolean;
  /** The containers this update made (its copies and new documents), which it may write into. */
  readonly owned: Set<object>;
}

/** Where a value lives: its container and key, and whether it is there now. */
export interface Target {
  readonly container: Container;
  readonly key: string;
  readonly path: string;
}

export function readTarget(target: Target): unknown {
  const { container, key } = target;
  return Array.isArray(container) ? container[Number(key)] : container[key];
}

export function writeTarget(target: Target, value: unknown): void {
  const { container, key } = target;
  if (Array.isArray(container)) {
    const index = Number(key);
    // mongod pads with nulls when setting past the end of an array.
    while (container.length < index) container.push(null);
    container[index] = value;
  } else {
    setField(container, key, value);
  }
}

export function removeTarget(target: Target): void {
  const { container, key } = target;
  // $unset of an array element leaves a null, keeping the other elements' positions.
  if (Array.isArray(container)) {
    if (Number(key) < container.length) container[Number(key)] = null;
  } else {
    removeField(container, key);
  }
}

/** Every place an update path designates in `doc` (several with `$[]` / `$[id]`); `doc` must
 * be one of `resolution.owned`. */
export function resolveTargets(doc: Container, path: string, resolution: PathResolution): Target[] {
  const parts = path.split(".");
  const targets: Target[] = [];
  descend(doc, parts, 0, "", resolution, targets);
  return targets;
}

function descend(
  container: Container,
  parts: string[],
  index: number,
  walked: string,
  resolution: PathResolution,
  targets: Target[],
): void {
  const part = parts[index];
  if (part === undefined) return;
  const nextPart = parts[index + 1];
  const keys = keysFor(container, part, walked, resolution);
  for (const key of keys) {
    const here = walked === "" ? key : `${walked}.${key}`;
    if (nextPart === undefined) {
      targets.push({ container, key, path: here });
      continue;
    }
    const next = nextContainer(container, key, nextPart, here, resolution);
    if (next !== undefined) descend(next, parts, index + 1, here, resolution, targets);
  }
}

function keysFor(container: Container, part: string, walked: string, resolution: PathResolution): string[] {
  if (part === "$") {
    if (resolution.positionalIndex === undefined) {
      throw queryError("BadValue", "The positional operator did not find the match needed from the query.");
    }
    return [String(resolution.positionalIndex)];
  }
  if (!part.startsWith("$[")) return [part];
  if (!Array.isArray(container)) {
    throw queryError(
      "BadValue",
      `The path '${walked}' must exist in the document in order to apply array updates.`,
    );
  }
  const indexes = container.map((_, i) => i);
  if (part === "$[]") return indexes.map(String);
  const identifier = part.slice(2, -1);
  const matches = resolution.arrayFilters.get(identifier);
  if (matches === undefined) {
    throw queryError(
      "BadValue",
      `No array filter found for identifier '${identifier}' in path '${walked}.${part}'`,
    );
  }
  return indexes.filter((i) => matches(container[i])).map(String);
}

function nextContainer(
  container: Container,
  key: string,
  nextPart: string,
  here: string,
  resolution: PathResolution,
): Container | undefined {
  const target: Target = { container, key, path: here };
  const current = readTarget(target);
  if (isPlainDocument(current) || Array.isArray(current)) {
    if (Array.isArray(current) && !isArrayIndex(nextPart) && !nextPart.startsWith("$")) {
      if (!resolution.create) return undefined;
      throw queryError("PathNotViable", `Cannot create field '${nextPart}' in element {${key}: [...]}`);
    }
    return ownedContainer(target, current as Container, resolution.owned);
  }
  if (!resolution.create) return undefined;
  if (current !== undefined) {
    throw queryError(
      "PathNotViable",
      `Cannot create field '${nextPart}' in element {${key}: ${String(current)}}`,
    );
  }
  if (nextPart.startsWith("$")) {
    throw queryError(
      "BadValue",
      `The path '${here}' must exist in the document in order to apply array updates.`,
    );
  }
  const created = {};
  resolution.owned.add(created);
  writeTarget(target, created);
  return created;
}

/** The container at `target`, copied into place first unless this update made it. */
function ownedContainer(target: Target, container: Container, owned: Set<object>): Container {
  if (owned.has(container)) return container;
  const copy = shallowCopy(container);
  owned.add(copy);
  writeTarget(target, copy);
  return copy;
}
