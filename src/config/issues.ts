// Turns validation problems into one ConfigError whose message has one line per problem:
// where the value came from (file or environment variable), its key path, what was
// expected and what was found. URI passwords never appear in it.
import type { z } from "zod";
import { redactUriPasswords } from "./mongodb-uri.js";

/** A value that came from an environment variable rather than the file. */
export interface ValueOrigin {
  path: string;
  source: string;
}

type PathKey = PropertyKey;

/** `rules[1].threshold` from ["rules", 1, "threshold"]. */
export function keyPath(path: readonly PathKey[]): string {
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`))
    .join("");
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(redactUriPasswords(value));
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a mapping";
  return JSON.stringify(value);
}

// zod's own messages start with "Invalid input: " or similar; ours already say "expected ...".
function expectation(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}`;
  }
  if (issue.code === "invalid_union" && "options" in issue && Array.isArray(issue.options)) {
    return `expected one of ${issue.options.map((option) => JSON.stringify(option)).join(", ")}`;
  }
  const message = issue.message.replace(/^Invalid (input|option|value): /, "");
  return message.replace(/"\|"/g, '", "');
}

function originOf(
  path: readonly PathKey[],
  file: string | undefined,
  origins: readonly ValueOrigin[],
): string {
  const dotted = path.map(String).join(".");
  const fromEnv = origins.find((origin) => origin.path === dotted);
  if (fromEnv) return fromEnv.source;
  return file ?? "configuration";
}

function formatIssue(
  issue: z.core.$ZodIssue,
  raw: unknown,
  file: string | undefined,
  origins: readonly ValueOrigin[],
): string {
  const where = issue.path.length === 0 ? "top level" : keyPath(issue.path);
  const head = `${originOf(issue.path, file, origins)}: ${where}: ${expectation(issue)}`;
  if (issue.code === "unrecognized_keys" || issue.code === "custom") return head;
  return `${head}, got ${describeFound(valueAt(raw, issue.path))}`;
}

export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  file: string | undefined,
  origins: readonly ValueOrigin[],
): string {
  return issues.map((issue) => formatIssue(issue, raw, file, origins)).join("\n");
}
