import { test } from "node:test";
import assert from "node:assert/strict";
import { databaseOfUri, redactUri, redactUriPasswords } from "../../../src/config/mongodb-uri.js";

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

const FIVE_MIB = 5 * 1024 * 1024;

void test("a 5 MiB text quoting no connection string comes out of the mask unchanged", () => {
  // Scheme characters without "://": the text a backtracking mask retried from every position.
  const text = "x".repeat(FIVE_MIB);
  assert.equal(redactUriPasswords(text), text);
});

void test("a 5 MiB text quoting thousands of connection strings has every password masked", () => {
  const text = "mongodb://admin:s3cret@db/shop x:// ".repeat(FIVE_MIB / 36);
  const masked = redactUriPasswords(text);
  assert.equal(masked, "mongodb://admin:****@db/shop x:// ".repeat(FIVE_MIB / 36));
});

void test("a password with a raw space, which the driver accepts, is masked whole", () => {
  assert.equal(
    redactUri("mongodb://admin:pa ss@h1,h2/shop?replicaSet=rs0"),
    "mongodb://admin:****@h1,h2/shop?replicaSet=rs0",
  );
  assert.equal(
    redactUriPasswords("failed to connect to mongodb://admin:pa ss word@host/shop"),
    "failed to connect to mongodb://admin:****@host/shop",
  );
});

void test("a connection string the driver's parser rejects is still masked", () => {
  assert.equal(redactUri("mongodb://admin:p@ss@host/db"), "mongodb://admin:****@host/db");
});

void test("every secret option of a connection string is masked, whatever the case of its name", () => {
  assert.equal(
    redactUri(
      "mongodb://admin:s3cret@host/shop?tls=true&TLSCertificateKeyFilePassword=kp&proxyHost=p&proxyUsername=u&proxyPassword=pp",
    ),
    "mongodb://admin:****@host/shop?tls=true&TLSCertificateKeyFilePassword=****&proxyHost=p&proxyUsername=u&proxyPassword=****",
  );
});

void test("the AWS session token among the mechanism properties is masked, the other properties kept", () => {
  assert.equal(
    redactUri(
      "mongodb://key:s3cret@host/shop?authMechanism=MONGODB-AWS&authMechanismProperties=SERVICE_NAME:db,AWS_SESSION_TOKEN:tok",
    ),
    "mongodb://key:****@host/shop?authMechanism=MONGODB-AWS&authMechanismProperties=SERVICE_NAME:db,AWS_SESSION_TOKEN:****",
  );
});

void test("secret options in connection strings inside any text are masked", () => {
  assert.equal(
    redactUriPasswords(
      "cannot use mongodb://h/?tlsCertificateKeyFilePassword=kp&tls=true nor mongdb://h/?authMechanismProperties=AWS_SESSION_TOKEN%3Atok,SERVICE_NAME:db\nnext line",
    ),
    "cannot use mongodb://h/?tlsCertificateKeyFilePassword=****&tls=true nor mongdb://h/?authMechanismProperties=AWS_SESSION_TOKEN%3A****,SERVICE_NAME:db\nnext line",
  );
});

void test("a secret option's raw space does not leak the value's tail, nor does masking twice", () => {
  const once = redactUriPasswords('got "mongdb://h/?proxyPassword=p w&tls=true"');
  assert.equal(once, 'got "mongdb://h/?proxyPassword=****&tls=true"');
  assert.equal(redactUriPasswords(once), once);
});

void test("a 5 MiB text repeating a secret option's name is masked in one pass", () => {
  const text = "proxyPassword=".repeat(FIVE_MIB / 14);
  assert.equal(redactUriPasswords(text), "proxyPassword=****");
});
