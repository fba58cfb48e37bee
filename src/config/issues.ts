// Turns validation problems into one ConfigError whose message has one line per problem:
// where the value came from (file or environment variable), its key path, what was
// expected and what was found. URI passwords never appear in it, and a long value is cut
// short with its size (quoted-value.ts).
import type { z } from "zod";
import { quoted } from "../patterns/bson/quoted-value.js";
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
  // Masked before it is cut, so that no cut leaves part of a password unmasked.
  if (typeof value === "string") return quoted(redactUriPasswords(value));
  if (Array.isArray(value)) return value.length === 0 ? "an empty list" : `a list of ${value.length}`;
  if (value !== null && typeof value === "object") return "a mapping";
  return JSON.stringify(value);
}

/** What a person calls each type zod names. */
const TYPE_NAMES: Record<string, string> = {
  number: "a number",
  int: "an integer",
  string: "text",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
};

function sizeExpectation(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const big = issue.code === "too_big";
  const limit = Number(big ? issue.maximum : issue.minimum);
  const bound = big ? (issue.inclusive ? "at most" : "below") : issue.inclusive ? "at least" : "above";
  if (issue.origin === "number") return `expected a number ${bound} ${limit}`;
  if (issue.origin === "array") return `expected a list of ${bound} ${limit} entries`;
  return `expected text of ${bound} ${limit} characters`;
}

// zod's own messages ("Invalid input: expected number, received string", "Too big: ...")
// are rewritten as sentences; the schema's own messages already say "expected ...".
function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => quoted(key)).join(", ")}`;
    case "invalid_type":
      // A bounded integer's own message ("expected an integer from 1 to 100") for a fraction.
      if (issue.expected === "int" && issue.message.startsWith("expected ")) return issue.message;
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_big":
    case "too_small":
      if (/^Too (big|small)/.test(issue.message)) return sizeExpectation(issue);
      break;
    case "invalid_union":
      if ("options" in issue && Array.isArray(issue.options))
        return `expected one of ${issue.options.map((option) => JSON.stringify(option)).join(", ")}`;
      break;
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
  // One value can fail two checks that say the same (1e30: not a safe integer, and too big).
  return [...new Set(issues.map((issue) => formatIssue(issue, raw, file, origins)))].join("\n");
}
