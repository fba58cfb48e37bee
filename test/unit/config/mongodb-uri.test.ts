import { test } from "node:test";
import assert from "node:assert/strict";
import { databaseOfUri, redactUriPasswords } from "../../../src/config/mongodb-uri.js";

void test("the database is the connection string's path", () => {
  assert.equal(databaseOfUri("mongodb://user:pw@h1:27017,h2:27017/shop?replicaSet=rs0"), "shop");
  assert.equal(databaseOfUri("mongodb+srv://cluster.example.net/books"), "books");
});

void test("a connection string without a path names no database", () => {
  assert.equal(databaseOfUri("mongodb://localhost:27017/?replicaSet=rs0"), undefined);
  assert.equal(databaseOfUri("mongodb://localhost:27017"), undefined);
});

void test("passwords are masked in connection strings inside any text", () => {
  assert.equal(
    redactUriPasswords("failed to connect to mongodb+srv://admin:s3cret@db.example.com/shop"),
    "failed to connect to mongodb+srv://admin:****@db.example.com/shop",
  );
});

void test("a raw @ in a password does not leak the password's tail", () => {
  assert.equal(redactUriPasswords("mongodb://admin:p@ss@host/db"), "mongodb://admin:****@host/db");
});
