// Regular expressions in filters: `/x/i`, BSONRegExp, or `{ $regex: "x", $options: "i" }`.
// mongod uses PCRE; JavaScript's engine covers the options the driver sends (i, m, s, x).
import type { BSONRegExp } from "bson";
import { bsonTag } from "./bson-types.js";
import { queryError } from "./query-error.js";

const SUPPORTED_OPTIONS = /^[imsxu]*$/;

export function compileRegex(pattern: unknown, options?: unknown): RegExp {
  if (options !== undefined && typeof options !== "string") {
    throw queryError("BadValue", "$options has to be a string");
  }
  if (pattern instanceof RegExp) return options ? buildRegex(pattern.source, options) : pattern;
  if (bsonTag(pattern) === "BSONRegExp") {
    const regex = pattern as BSONRegExp;
    return buildRegex(regex.pattern, options ?? regex.options);
  }
  if (typeof pattern !== "string") throw queryError("BadValue", "$regex has to be a string");
  return buildRegex(pattern, options ?? "");
}

function buildRegex(source: string, options: string): RegExp {
  if (!SUPPORTED_OPTIONS.test(options)) {
    throw queryError("BadValue", `invalid flag in regex options: ${options}`);
  }
  const body = options.includes("x") ? stripExtendedSyntax(source) : source;
  const flags = options.replace(/[xu]/g, "");
  try {
    return new RegExp(body, flags + "u");
  } catch {
    try {
      return new RegExp(body, flags);
    } catch (error) {
      throw queryError("BadValue", `Regular expression is invalid: ${(error as Error).message}`);
    }
  }
}

/** Regexes match strings (and symbols) only. */
export function regexMatches(regex: RegExp, value: unknown): boolean {
  if (typeof value === "string") return regex.test(value);
  if (bsonTag(value) === "BSONSymbol") return regex.test(String((value as { value: string }).value));
  return false;
}

/** PCRE's extended mode (x) ignores unescaped whitespace and #-comments; JavaScript has no such flag. */
function stripExtendedSyntax(source: string): string {
  let result = "";
  let inComment = false;
  for (let i = 0; i < source.length; i++) {
    const char = source.charAt(i);
    if (inComment) {
      inComment = char !== "\n";
    } else if (char === "\\") {
      result += char + (source[i + 1] ?? "");
      i++;
    } else if (char === "#") {
      inComment = true;
    } else if (!/\s/.test(char)) {
      result += char;
    }
  }
  return result;
}
