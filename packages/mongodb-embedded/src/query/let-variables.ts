// A command's `let` option: user variables, each an expression evaluated once before any
// document is read, visible as `$$name` in $expr, pipeline stages and pipeline updates.
// Names and values are checked as mongod 7.0 checks them.
import type { Document } from "bson";
import { ServerError } from "../errors.js";
import { isPlainDocument } from "./bson-types.js";
import { evaluateConstantExpression } from "./expression.js";
import { queryError } from "./query-error.js";

/** System variables mongod accepts in `let` only from its own internal clients. */
const INTERNAL_CONSTANTS = new Set(["NOW", "CLUSTER_TIME", "JS_SCOPE", "IS_MR", "USER_ROLES"]);

/** Validates the names and evaluates the values of a `let` document, in field order. */
export function evaluateLetVariables(spec: Document): Document {
  const variables: Document = {};
  for (const [name, expression] of Object.entries(spec)) {
    assertUserVariableName(name);
    if (readsDocument(expression)) {
      // mongod's message lacks the space between the two sentences; kept for fidelity.
      throw new ServerError(
        4890500,
        "Location4890500",
        "Command let Expression tried to access a field, but this is not allowed because" +
          "Command let Expressions run before the query examines any documents.",
      );
    }
    // Earlier variables are in scope for later ones, as in mongod.
    variables[name] = hasOperators(expression)
      ? evaluateConstantExpression(expression, variables)
      : expression;
  }
  return variables;
}

function assertUserVariableName(name: string): void {
  if (INTERNAL_CONSTANTS.has(name)) {
    throw new ServerError(4738901, "Location4738901", `Attempt to set internal constant: ${name}`);
  }
  if (name === "CURRENT") {
    // mongod accepts it, but it would shadow the document itself: refused rather than guessed.
    throw queryError("NotImplemented", "a 'let' variable named CURRENT is not supported");
  }
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw queryError("FailedToParse", `Invalid 'let' parameter :: caused by :: ${problem}`);
  }
}

/** mongod's rule for user-written names: a lowercase or non-ASCII first character, then
 * letters, digits, `_` or non-ASCII. */
function nameProblem(name: string): string | undefined {
  if (name.length === 0) return "empty variable names are not allowed";
  if (!/^[a-z\u{80}-\u{10ffff}]/u.test(name))
    return `'${name}' starts with an invalid character for a user variable name`;
  const bad = /[^A-Za-z0-9_\u{80}-\u{10ffff}]/u.exec(name);
  if (bad) return `'${name}' contains an invalid character for a variable name: '${bad[0]}'`;
  return undefined;
}

/** True when the expression names a field or the current document ($$ROOT, $$CURRENT). */
function readsDocument(expression: unknown): boolean {
  if (typeof expression === "string") {
    if (!expression.startsWith("$")) return false;
    if (!expression.startsWith("$$")) return true;
    return /^\$\$(ROOT|CURRENT)(\.|$)/.test(expression);
  }
  if (Array.isArray(expression)) return expression.some(readsDocument);
  if (!isPlainDocument(expression)) return false;
  return Object.entries(expression).some(([key, value]) => key !== "$literal" && readsDocument(value));
}

/** Plain values (no `$` operator or `$`-string anywhere) are kept as sent, BSON types intact. */
function hasOperators(expression: unknown): boolean {
  if (typeof expression === "string") return expression.startsWith("$");
  if (Array.isArray(expression)) return expression.some(hasOperators);
  if (!isPlainDocument(expression)) return false;
  return Object.entries(expression).some(([key, value]) => key.startsWith("$") || hasOperators(value));
}
