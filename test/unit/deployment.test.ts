import { test } from "node:test";
import assert from "node:assert/strict";
import { databaseFromUri } from "../../src/deployment.js";

void test("the database is the connection string's path", () => {
  assert.equal(databaseFromUri("mongodb://user:pw@h1:27017,h2:27017/shop?replicaSet=rs0"), "shop");
  assert.equal(databaseFromUri("mongodb+srv://cluster.example.net/books"), "books");
});

void test("a connection string without a path names no database", () => {
  assert.equal(databaseFromUri("mongodb://localhost:27017/?replicaSet=rs0"), undefined);
  assert.equal(databaseFromUri("mongodb://localhost:27017"), undefined);
});
