// $rename moves a value from one path to another. mongod refuses paths through arrays for
// either side, and ignores a source that does not exist.
import { queryError } from "./query-error.js";
import { readTarget, removeTarget, resolveTargets, writeTarget, type Target } from "./update-path.js";

const NO_ARRAY_FILTERS = new Map<string, (element: unknown) => boolean>();

/**
 * Renames within `doc`, one of the containers the update `owned` (see update-path.ts); the
 * destination's path when something moved.
 */
export function applyRename(
  doc: Record<string, unknown>,
  source: string,
  destination: unknown,
  owned: Set<object>,
): string | undefined {
  if (typeof destination !== "string" || destination === "") {
    throw queryError(
      "BadValue",
      `The 'to' field for $rename must be a string: ${source}: ${String(destination)}`,
    );
  }
  if (source === destination) {
    throw queryError(
      "BadValue",
      `The source and target field for $rename must differ: ${source}: "${destination}"`,
    );
  }
  if (source.includes("$") || destination.includes("$")) {
    throw queryError(
      "BadValue",
      "The source and target field for $rename must not contain positional operators",
    );
  }
  const [from] = resolveTargets(doc, source, { arrayFilters: NO_ARRAY_FILTERS, create: false, owned });
  if (from === undefined) return undefined;
  assertNotInArray(from, "source");
  const value = readTarget(from);
  if (value === undefined) return undefined;
  removeTarget(from);
  const [to] = resolveTargets(doc, destination, { arrayFilters: NO_ARRAY_FILTERS, create: true, owned });
  if (to === undefined)
    throw queryError("BadValue", `The destination field '${destination}' cannot be created`);
  assertNotInArray(to, "destination");
  writeTarget(to, value);
  return to.path;
}

function assertNotInArray(target: Target, side: string): void {
  if (Array.isArray(target.container)) {
    throw queryError("BadValue", `The ${side} field cannot be an array element, '${target.path}' in doc`);
  }
}
