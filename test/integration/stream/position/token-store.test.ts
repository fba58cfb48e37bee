// The shared position only moves forward (TokenStore.advanceTo): replicas streaming by
// partition each advance it to the oldest position they all passed, and one may have read an
// older one than another wrote; a position stored for other rules is no position of these.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { TokenStore } from "../../../../src/stream/position/token-store.js";
import { useTestDatabase } from "../../../support/mongo.js";

const STATE = "sidecar_state";
const NAME = "changestream:test";
const fixture = useTestDatabase("token_store");

// Tokens' `_data` sort as their events do.
const token = (data: string): Document => ({ _data: data });

const store = (fingerprint = "rules-a") => new TokenStore(fixture.db, STATE, NAME, fingerprint);

const stored = () =>
  fixture.db.collection<{ _id: string; resumeToken: Document; rulesFingerprint: string }>(STATE).findOne({
    _id: NAME,
  });

void test("advanceTo stores a position where none is", async () => {
  assert.equal(await store().advanceTo(token("8200000010"), 16), true);
  assert.deepEqual((await stored())?.resumeToken, token("8200000010"));
  assert.deepEqual((await store().load())?.clusterTimeSeconds, 16);
});

void test("advanceTo moves the position forward, never back nor onto itself", async () => {
  await store().persistResumeToken(token("8200000020"));
  assert.equal(await store().advanceTo(token("8200000010")), false, "an older token");
  assert.equal(await store().advanceTo(token("8200000020")), false, "the same token");
  assert.deepEqual((await stored())?.resumeToken, token("8200000020"));
  assert.equal(await store().advanceTo(token("8200000030")), true, "a newer token");
  assert.deepEqual((await stored())?.resumeToken, token("8200000030"));
});

void test("advanceTo replaces a position stored for other rules, even a newer one", async () => {
  await store("rules-b").persistResumeToken(token("8200000090"));
  assert.equal(await store("rules-a").load(), null, "no position of these rules");
  assert.equal(await store("rules-a").advanceTo(token("8200000010")), true);
  const now = await stored();
  assert.deepEqual(now?.resumeToken, token("8200000010"));
  assert.equal(now?.rulesFingerprint, "rules-a");
});
