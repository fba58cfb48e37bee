import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Int32 } from "bson";
import { ServerError } from "../../../src/errors.js";
import { collatorFor, parseCollation } from "../../../src/query/index.js";

/** The ServerError a collation document is refused with. */
function refusal(raw: unknown): ServerError {
  try {
    collatorFor(raw);
  } catch (error) {
    assert.ok(error instanceof ServerError, `expected a ServerError, got ${String(error)}`);
    return error;
  }
  assert.fail(`collation ${JSON.stringify(raw)} was accepted`);
}

const order = (raw: object, a: string, b: string) => Math.sign(collatorFor(raw)!(a, b));

void describe("collation documents become string comparators", () => {
  void it("treats a missing collation and locale 'simple' as binary comparison", () => {
    assert.equal(collatorFor(undefined), undefined);
    assert.equal(collatorFor({ locale: "simple" }), undefined);
  });

  void it("ignores case and keeps accents at strength 2", () => {
    assert.equal(order({ locale: "en_US", strength: 2 }, "ping", "PING"), 0);
    assert.notEqual(order({ locale: "en_US", strength: 2 }, "resume", "résumé"), 0);
  });

  void it("ignores case and accents at strength 1", () => {
    assert.equal(order({ locale: "en", strength: 1 }, "resume", "RÉSUMÉ"), 0);
  });

  void it("tells case apart at the default strength 3", () => {
    assert.notEqual(order({ locale: "en" }, "a", "A"), 0);
  });

  void it("orders case by caseFirst", () => {
    assert.equal(order({ locale: "en", caseFirst: "upper" }, "A", "a"), -1);
    assert.equal(order({ locale: "en", caseFirst: "lower" }, "A", "a"), 1);
  });

  void it("tells case apart at strength 1 when caseLevel is on", () => {
    assert.notEqual(order({ locale: "en", strength: 1, caseLevel: true }, "a", "A"), 0);
    assert.equal(order({ locale: "en", strength: 1, caseLevel: true }, "a", "á"), 0);
  });

  void it("orders digit runs by value with numericOrdering", () => {
    assert.equal(order({ locale: "en", numericOrdering: true }, "item9", "item10"), -1);
    assert.equal(order({ locale: "en" }, "item9", "item10"), 1);
  });

  void it("accepts a strength given as Int32", () => {
    assert.equal(order({ locale: "en", strength: new Int32(2) }, "a", "A"), 0);
  });

  void it("keeps canonically equivalent strings equal below strength 5", () => {
    assert.equal(order({ locale: "en", strength: 3 }, "\u00e9", "e\u0301"), 0);
  });

  void it("accepts a locale with an ICU collation keyword", () => {
    const spec = parseCollation({ locale: "de@collation=phonebook" });
    assert.equal(spec?.locale, "de@collation=phonebook");
  });
});

void describe("collation documents are validated like mongod's", () => {
  void it("refuses a collation that is not a document with TypeMismatch", () => {
    const error = refusal("en_US");
    assert.equal(error.code, 14);
    assert.match(error.message, /collation' is the wrong type 'string', expected type 'object'/);
  });

  void it("requires a locale", () => {
    const error = refusal({ strength: 2 });
    assert.equal(error.codeName, "NoSuchKey");
    assert.equal(error.message, 'Missing expected field "locale"');
  });

  void it("refuses a locale ICU does not know with BadValue", () => {
    const error = refusal({ locale: "xx" });
    assert.equal(error.code, 2);
    assert.equal(error.message, `Field 'locale' is invalid in: { locale: "xx" }`);
  });

  void it("suggests the locale ICU would fall back to", () => {
    assert.match(refusal({ locale: "en_ZZ" }).message, /Did you mean 'en'\?$/);
  });

  void it("refuses other fields beside locale 'simple' with FailedToParse", () => {
    const error = refusal({ locale: "simple", strength: 2 });
    assert.equal(error.code, 9);
    assert.match(error.message, /^If locale=simple, no other fields should be present/);
  });

  void it("refuses a strength outside 1 through 5 with FailedToParse", () => {
    const error = refusal({ locale: "en", strength: 6 });
    assert.equal(error.code, 9);
    assert.equal(error.message, "Field 'strength' must be an integer 1 through 5. Got: 6");
  });

  void it("refuses a strength that is not a number with TypeMismatch", () => {
    assert.equal(refusal({ locale: "en", strength: "2" }).code, 14);
  });

  void it("refuses a boolean option of another type with TypeMismatch", () => {
    const error = refusal({ locale: "en", caseLevel: 1 });
    assert.equal(error.code, 14);
    assert.equal(error.message, '"caseLevel" had the wrong type. Expected bool, found int');
  });

  void it("refuses an unknown caseFirst value with FailedToParse", () => {
    const error = refusal({ locale: "en", caseFirst: "first" });
    assert.equal(error.message, "Field 'caseFirst' must be 'upper', 'lower', or 'off'. Got: first");
  });

  void it("refuses an unknown field with FailedToParse", () => {
    const error = refusal({ locale: "en", colour: "blue" });
    assert.equal(error.code, 9);
    assert.match(error.message, /^Collation spec contains unknown field/);
  });

  void it("refuses caseFirst at strength 2 without caseLevel with BadValue", () => {
    assert.equal(refusal({ locale: "en", strength: 2, caseFirst: "upper" }).code, 2);
  });

  void it("refuses a version other than mongod's ICU version", () => {
    assert.equal(refusal({ locale: "en", version: "99.1" }).codeName, "IncompatibleCollationVersion");
    assert.notEqual(collatorFor({ locale: "en", version: "57.1" }), undefined);
  });

  void it("refuses valid options it cannot honour with NotImplemented", () => {
    assert.equal(refusal({ locale: "en", alternate: "shifted" }).codeName, "NotImplemented");
    assert.equal(refusal({ locale: "fr", backwards: true }).codeName, "NotImplemented");
    assert.equal(refusal({ locale: "en", normalization: true }).codeName, "NotImplemented");
  });
});
