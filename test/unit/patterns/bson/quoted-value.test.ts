import { test } from "node:test";
import assert from "node:assert/strict";
import { QUOTED_BYTES, quoted, shortened } from "../../../../src/patterns/bson/quoted-value.js";

void test("a short value is quoted whole, as JSON", () => {
  assert.equal(quoted("abc"), '"abc"');
  assert.equal(quoted({ a: 1 }), '{"a":1}');
  assert.equal(quoted("é".repeat(QUOTED_BYTES / 2)), JSON.stringify("é".repeat(QUOTED_BYTES / 2)));
});

void test("a 5 MiB string is quoted by its first bytes and its full size", () => {
  const text = quoted("abc".repeat((5 * 1024 * 1024) / 3 + 1).slice(0, 5 * 1024 * 1024));
  assert.match(text, /^"abcabc.*…" \(5242880 bytes\)$/);
  assert.equal(text.length, `"${"x".repeat(QUOTED_BYTES)}…" (5242880 bytes)`.length);
});

void test("a long document is quoted by the start of its JSON and its full size", () => {
  const value = { text: "x".repeat(10_000) };
  assert.equal(quoted(value), `{"text":"${"x".repeat(QUOTED_BYTES - 9)}… (10011 bytes)`);
});

void test("a cut never splits a character", () => {
  // 2 bytes each, then a 4-byte one straddling the limit
  const text = `${"é".repeat(QUOTED_BYTES / 2 - 1)}😀😀`;
  assert.equal(
    quoted(text),
    `${JSON.stringify(`${"é".repeat(QUOTED_BYTES / 2 - 1)}…`)} (${Buffer.byteLength(text)} bytes)`,
  );
  assert.equal(shortened("😀😀", 5), "😀… (8 bytes)");
});
