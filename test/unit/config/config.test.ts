import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeRules } from "../../../src/config/describe.js";
import { loadConfig } from "../../../src/config/load.js";
import { distinctFields } from "../../../src/config/rule-fields.js";
import { ConfigError } from "../../../src/errors.js";
import type { OutlierRule } from "../../../src/patterns/outlier/rule.js";

const dir = mkdtempSync(join(tmpdir(), "sidecar-config-"));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  return assert.fail("expected loadConfig to throw");
}

void test("without a file or environment the rules are the seeds'", () => {
  const config = loadConfig({ env: {} });
  assert.deepEqual(
    config.rules.map((rule) => [rule.name, rule.pattern, rule.threshold]),
    [
      ["sales.customers_purchased", "outlier", 50],
      ["trades.history", "bucket", 10],
      ["products.reviews", "subset", 10],
    ],
  );
  assert.equal(config.database, "test");
  assert.equal(config.mongodbUri, undefined);
});

void test("a YAML file sets rules and settings", () => {
  const path = file(
    "sidecar.yaml",
    "database: shop\nrules:\n  - pattern: outlier\n    threshold: 20\n    chunkSize: 100\n",
  );
  const config = loadConfig({ file: path, env: {} });
  assert.equal(config.database, "shop");
  assert.equal(config.rules.length, 1);
  assert.equal(config.rules[0]?.pattern, "outlier");
  assert.equal((config.rules[0] as OutlierRule | undefined)?.chunkSize, 100);
});

void test("a JSON file is read as YAML", () => {
  const path = file(
    "sidecar.json",
    JSON.stringify({ concurrency: 2, rules: [{ pattern: "bucket", name: "pages" }] }),
  );
  const config = loadConfig({ file: path, env: {} });
  assert.equal(config.concurrency, 2);
  assert.equal(config.rules[0]?.name, "pages");
});

void test("SIDECAR_CONFIG names the file when --config does not", () => {
  const path = file("from-env.yaml", "logLevel: debug\n");
  assert.equal(loadConfig({ env: { SIDECAR_CONFIG: path } }).logLevel, "debug");
});

void test("environment variables override the file", () => {
  const path = file(
    "overridden.yaml",
    "database: shop\nconcurrency: 2\nhttp:\n  host: 127.0.0.1\n  port: 1000\n",
  );
  const config = loadConfig({
    file: path,
    env: {
      SIDECAR_DATABASE: "other",
      SIDECAR_CONCURRENCY: "5",
      SIDECAR_HTTP_PORT: "9999",
      SIDECAR_LOG_LEVEL: "warn",
    },
  });
  assert.deepEqual(
    [config.database, config.concurrency, config.http, config.logLevel],
    ["other", 5, { host: "127.0.0.1", port: 9999 }, "warn"],
  );
});

void test("an explicit database setting wins over the URI's path, which may be the authentication database", () => {
  const config = loadConfig({
    env: { MONGODB_URI: "mongodb://u:p@h1,h2/admin?replicaSet=rs", SIDECAR_DATABASE: "shop" },
  });
  assert.equal(config.database, "shop");
  const path = file("database-key.yaml", "database: shop\n");
  assert.equal(loadConfig({ file: path, env: { MONGODB_URI: "mongodb://h1/other" } }).database, "shop");
});

void test("without a database setting, the URI's path names the database", () => {
  assert.equal(loadConfig({ env: { MONGODB_URI: "mongodb://h1,h2/shop?replicaSet=rs" } }).database, "shop");
});

void test("a URI whose path names admin, without a database setting, asks for one", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { MONGODB_URI: "mongodb://u:s3cret@h1/admin" } })),
    "MONGODB_URI: the connection string's path names the database to watch: expected the application's database, not \"admin\", where MongoDB refuses change streams and transactions; set database (SIDECAR_DATABASE) to the application's database, and the path stays the authentication database",
  );
});

void test("a URI without a path leaves the database setting in force", () => {
  assert.equal(
    loadConfig({ env: { MONGODB_URI: "mongodb://localhost:27017", SIDECAR_DATABASE: "x" } }).database,
    "x",
  );
});

void test("an invalid threshold is reported with its key path, value, expectation and file", () => {
  const path = file(
    "bad-threshold.yaml",
    "rules:\n  - pattern: bucket\n  - pattern: outlier\n    threshold: -3\n",
  );
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: rules[1].threshold: expected an integer from 1 to 100000, got -3`,
  );
});

void test("every problem gets its own line", () => {
  const path = file(
    "bad-many.yaml",
    "logLevel: loud\nrules:\n  - pattern: bukket\n  - pattern: bucket\n    treshold: 3\n",
  );
  const lines = errorOf(() => loadConfig({ file: path, env: {} })).split("\n");
  assert.deepEqual(lines, [
    `${path}: logLevel: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "loud"`,
    `${path}: rules[0].pattern: expected one of "outlier", "bucket", "subset", got "bukket"`,
    `${path}: rules[1]: unknown key "treshold"`,
  ]);
});

void test("a bad environment value is reported under the variable's name", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { SIDECAR_HTTP_PORT: "http" } })),
    'SIDECAR_HTTP_PORT: http.port: expected a number, got "http"',
  );
});

void test("two rules with the same name are rejected", () => {
  const path = file(
    "dup-name.yaml",
    "rules:\n  - pattern: bucket\n    name: a\n  - pattern: outlier\n    name: a\n",
  );
  assert.match(
    errorOf(() => loadConfig({ file: path, env: {} })),
    /rules\[1\]\.name: rule name "a" is already used by rules\[0\]/,
  );
});

void test("two rules on the same collection and array field are rejected", () => {
  const path = file(
    "dup-target.yaml",
    "rules:\n  - pattern: subset\n    collection: things\n    arrayField: items\n  - pattern: outlier\n    collection: things\n    arrayField: items\n    name: other\n",
  );
  assert.match(
    errorOf(() => loadConfig({ file: path, env: {} })),
    /rules\[1\]\.arrayField: things\.items is already enforced by rules\[0\]/,
  );
});

void test("a rule's overflow collection that another rule watches is rejected", () => {
  const path = file(
    "shared-secondary.yaml",
    "rules:\n  - pattern: bucket\n  - pattern: outlier\n    overflowCollection: trades\n",
  );
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: rules[1].overflowCollection: expected a collection no other rule uses; rules[0] uses "trades"`,
  );
});

void test("two rules sharing one full-set collection are rejected", () => {
  const path = file(
    "shared-full-set.yaml",
    "rules:\n  - pattern: subset\n  - pattern: subset\n    collection: stores\n",
  );
  assert.match(
    errorOf(() => loadConfig({ file: path, env: {} })),
    /rules\[1\]\.fullSetCollection: expected a collection no other rule uses; rules\[0\] uses "reviews"/,
  );
});

void test("an invalid connection string is reported with its value, password masked", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { MONGODB_URI: "mysql://admin:s3cret@host/db" } })),
    'MONGODB_URI: mongodbUri: expected a mongodb:// or mongodb+srv:// connection string, got "mysql://admin:****@host/db"',
  );
});

void test("a dotted field name is rejected because the planners address top-level fields", () => {
  const path = file("dotted.yaml", "rules:\n  - pattern: bucket\n    arrayField: a.b\n");
  assert.match(
    errorOf(() => loadConfig({ file: path, env: {} })),
    /rules\[0\]\.arrayField: expected a top-level field name/,
  );
});

void test("a file that is not YAML is reported with its name", () => {
  const path = file("broken.yaml", "rules: [\n");
  assert.match(
    errorOf(() => loadConfig({ file: path, env: {} })),
    new RegExp(`^${path}: not valid YAML or JSON`),
  );
});

void test("a missing file is reported with its name", () => {
  assert.match(
    errorOf(() => loadConfig({ file: join(dir, "absent.yaml"), env: {} })),
    /absent\.yaml: cannot read/,
  );
});

void test("an invalid URI is reported without its password", () => {
  const message = errorOf(() =>
    loadConfig({ env: { MONGODB_URI: "mongdb://admin:s3cret@host/db", SIDECAR_CONCURRENCY: "x" } }),
  );
  assert.match(
    message,
    /^MONGODB_URI: mongodbUri: expected a mongodb:\/\/ or mongodb\+srv:\/\/ connection string/,
  );
  assert.doesNotMatch(message, /s3cret/);
});

void test("errors never show a URI's password, even for problems elsewhere", () => {
  const path = file("uri.yaml", "mongodbUri: mongodb://admin:s3cret@host/db\nconcurrency: 0\n");
  assert.doesNotMatch(
    errorOf(() => loadConfig({ file: path, env: {} })),
    /s3cret/,
  );
});

void test("describeRules lists every rule and masks the URI's password", () => {
  const text = describeRules(loadConfig({ env: { MONGODB_URI: "mongodb://admin:s3cret@host/shop" } }));
  assert.match(text, /deployment: mongodb:\/\/admin:\*\*\*\*@host\/shop/);
  assert.match(text, /sales\.customers_purchased \[outlier\]/);
  assert.match(text, /trades\.history \[bucket\]/);
  assert.match(text, /products\.reviews \[subset\]/);
  assert.doesNotMatch(text, /s3cret/);
});

void test("an environment variable set but empty is an error naming it, MONGODB_URI included", () => {
  assert.match(
    errorOf(() => loadConfig({ env: { MONGODB_URI: "" } })),
    /^MONGODB_URI: set but empty; expected a mongodb:\/\//,
  );
  assert.match(
    errorOf(() => loadConfig({ env: { SIDECAR_HTTP_PORT: " ", SIDECAR_DATABASE: "" } })),
    /SIDECAR_DATABASE: set but empty[\s\S]*SIDECAR_HTTP_PORT: set but empty/,
  );
});

void test("a port above 65535 is reported as a sentence, not zod's 'Too big'", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { SIDECAR_HTTP_PORT: "99999" } })),
    "SIDECAR_HTTP_PORT: http.port: expected an integer from 0 to 65535, got 99999",
  );
});

void test("a fractional number where an integer is expected says so", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { SIDECAR_CONCURRENCY: "5.5" } })),
    "SIDECAR_CONCURRENCY: concurrency: expected an integer from 1 to 100, got 5.5",
  );
});

void test("an empty list of rules is reported as empty", () => {
  const path = file("no-rules.yaml", "rules: []\n");
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: rules: expected at least one rule, got an empty list`,
  );
});

void test("rules given as a mapping are reported as expecting a list", () => {
  const path = file("rules-mapping.yaml", "rules:\n  pattern: bucket\n");
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: rules: expected a list, got a mapping`,
  );
});

void test("a value that is not true or false where one is expected says so", () => {
  const path = file("enabled.yaml", "rules:\n  - pattern: bucket\n    enabled: yes please\n");
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: rules[0].enabled: expected true or false, got "yes please"`,
  );
});

void test("a YAML error names the line and column and does not end on a colon", () => {
  const path = file("compact.yaml", "a: b: c\n");
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: not valid YAML or JSON: Nested mappings are not allowed in compact mappings at line 1, column 4`,
  );
});

void test("a connection string the driver cannot parse is rejected at load, not at connect", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { MONGODB_URI: "mongodb://h1:99999/shop" } })),
    "MONGODB_URI: mongodbUri: the MongoDB driver cannot use it: Unable to parse h1:99999 with URL",
  );
});

void test("a connection string with an unknown option is rejected at load", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { MONGODB_URI: "mongodb://admin:s3cret@h1/shop?replicaSett=rs0" } })),
    "MONGODB_URI: mongodbUri: the MongoDB driver cannot use it: option replicasett is not supported",
  );
});

void test("database names MongoDB refuses are rejected with the name", () => {
  for (const name of ["a b/c", "a$b", "a.b"]) {
    assert.equal(
      errorOf(() => loadConfig({ env: { SIDECAR_DATABASE: name } })),
      `SIDECAR_DATABASE: database: expected a database name without any of / \\ . " $ * < > : | ? or spaces, got ${JSON.stringify(name)}`,
    );
  }
});

void test("admin, local and config are refused as the database to watch", () => {
  for (const name of ["admin", "local", "config"]) {
    assert.equal(
      errorOf(() => loadConfig({ env: { SIDECAR_DATABASE: name } })),
      `SIDECAR_DATABASE: database: expected the application's database, not "${name}", where MongoDB refuses change streams and transactions`,
    );
  }
});

void test("collection names MongoDB refuses or reserves are rejected with the name", () => {
  const path = file(
    "collections.yaml",
    "stateCollection: system.state\nrules:\n  - pattern: bucket\n    collection: $bad\n  - pattern: subset\n    collection: ''\n  - pattern: outlier\n    overflowCollection: \"extra\\0sales\"\n",
  );
  assert.deepEqual(errorOf(() => loadConfig({ file: path, env: {} })).split("\n"), [
    `${path}: stateCollection: expected a collection name not starting with 'system.' (MongoDB's own), got "system.state"`,
    `${path}: rules[0].collection: expected a collection name without '$' or NUL, got "$bad"`,
    `${path}: rules[1].collection: expected a non-empty collection name, got ""`,
    `${path}: rules[2].overflowCollection: expected a collection name without '$' or NUL, got "extra\\u0000sales"`,
  ]);
});

void test("an http.host that is neither an address nor a host name is rejected", () => {
  const path = file("host.yaml", "http:\n  host: 'not a host'\n");
  assert.equal(
    errorOf(() => loadConfig({ file: path, env: {} })),
    `${path}: http.host: expected an IP address or a host name to listen on, got "not a host"`,
  );
});

void test("SIDECAR_LOG_FORMAT and SIDECAR_CONNECT_TIMEOUT_SECONDS set logFormat and connectTimeoutSeconds", () => {
  const config = loadConfig({ env: { SIDECAR_LOG_FORMAT: "pretty", SIDECAR_CONNECT_TIMEOUT_SECONDS: "5" } });
  assert.deepEqual([config.logFormat, config.connectTimeoutSeconds], ["pretty", 5]);
  assert.deepEqual(
    [loadConfig({ env: {} }).logFormat, loadConfig({ env: {} }).connectTimeoutSeconds],
    ["json", 60],
  );
});

void test("a concurrency of a billion is refused, naming the variable, the key, the value and the range", () => {
  assert.equal(
    errorOf(() => loadConfig({ env: { SIDECAR_CONCURRENCY: "1000000000" } })),
    "SIDECAR_CONCURRENCY: concurrency: expected an integer from 1 to 100, got 1000000000",
  );
});

void test("a lease, a threshold and a chunk size past their bounds are refused, one line each", () => {
  const path = file(
    "past-bounds.yaml",
    "leaseSeconds: 1e7\nrules:\n  - pattern: outlier\n    threshold: 1e15\n    chunkSize: 1e12\n  - pattern: subset\n    threshold: 1e30\n",
  );
  assert.deepEqual(errorOf(() => loadConfig({ file: path, env: {} })).split("\n"), [
    `${path}: leaseSeconds: expected an integer from 1 to 3600, got 10000000`,
    `${path}: rules[0].threshold: expected an integer from 1 to 100000, got 1000000000000000`,
    `${path}: rules[0].chunkSize: expected an integer from 1 to 100000, got 1000000000000`,
    `${path}: rules[1].threshold: expected an integer from 1 to 100000, got 1e+30`,
  ]);
});

// Every number of the configuration, with the largest value it takes.
const NUMBER_BOUNDS: [path: string, max: number, yaml: (value: number) => string][] = [
  ["http.port", 65535, (value) => `http:\n  port: ${value}\n`],
  ["connectTimeoutSeconds", 3600, (value) => `connectTimeoutSeconds: ${value}\n`],
  ["concurrency", 100, (value) => `concurrency: ${value}\n`],
  ["maxTransactionAttempts", 100, (value) => `maxTransactionAttempts: ${value}\n`],
  ["parkAfterAttempts", 100, (value) => `parkAfterAttempts: ${value}\n`],
  ["leaseSeconds", 3600, (value) => `leaseSeconds: ${value}\n`],
  ["takeoverWaitSeconds", 3600, (value) => `takeoverWaitSeconds: ${value}\n`],
  ...(["outlier", "bucket", "subset"] as const).map(
    (pattern): [string, number, (value: number) => string] => [
      "rules[0].threshold",
      100_000,
      (value) => `rules:\n  - pattern: ${pattern}\n    threshold: ${value}\n`,
    ],
  ),
  ["rules[0].chunkSize", 100_000, (value) => `rules:\n  - pattern: outlier\n    chunkSize: ${value}\n`],
];

void test("every number of the configuration has an upper bound, which it takes, and a message naming its range", () => {
  for (const [key, max, yaml] of NUMBER_BOUNDS) {
    assert.doesNotThrow(() => loadConfig({ file: file("at-bound.yaml", yaml(max)), env: {} }), key);
    const path = file("past-bound.yaml", yaml(max + 1));
    const min = key === "http.port" ? 0 : 1;
    assert.equal(
      errorOf(() => loadConfig({ file: path, env: {} })),
      `${path}: ${key}: expected an integer from ${min} to ${max}, got ${max + 1}`,
    );
  }
});

function ruleError(rule: string): string {
  const path = file("colliding.yaml", `rules:\n  - ${rule.replace(/, /g, "\n    ")}\n`);
  return errorOf(() => loadConfig({ file: path, env: {} })).replace(`${path}: `, "");
}

void test("an outlier rule whose sequence or reference field is _id is refused", () => {
  assert.equal(
    ruleError("pattern: outlier, sequenceField: _id"),
    'rules[0].sequenceField: expected a field other than "_id", which the sidecar sets itself, got "_id"',
  );
  assert.equal(
    ruleError("pattern: outlier, referenceField: _id"),
    'rules[0].referenceField: expected a field other than "_id", which the sidecar sets itself, got "_id"',
  );
});

void test("a bucket rule keyed by _id is refused: the bucket's _id is the sidecar's", () => {
  assert.equal(
    ruleError("pattern: bucket, keyField: _id"),
    'rules[0].keyField: expected a field other than "_id", which the sidecar sets itself, got "_id"',
  );
});

void test("a flag or count field that is the array field itself is refused", () => {
  assert.equal(
    ruleError("pattern: outlier, flagField: customers_purchased"),
    'rules[0].flagField: expected a field of its own, got "customers_purchased", which is also arrayField ("customers_purchased")',
  );
  assert.equal(
    ruleError("pattern: bucket, countField: history"),
    'rules[0].countField: expected a field of its own, got "history", which is also arrayField ("history")',
  );
});

void test("any two fields of one rule that are the same field are refused", () => {
  assert.equal(
    ruleError("pattern: outlier, referenceField: seq"),
    'rules[0].sequenceField: expected a field of its own, got "seq", which is also referenceField ("seq")',
  );
  assert.equal(
    ruleError("pattern: outlier, overflowArrayField: book_id"),
    'rules[0].overflowArrayField: expected a field of its own, got "book_id", which is also referenceField ("book_id")',
  );
  assert.equal(
    ruleError("pattern: bucket, dateField: customerId"),
    'rules[0].dateField: expected a field of its own, got "customerId", which is also keyField ("customerId")',
  );
  assert.equal(
    ruleError("pattern: subset, idField: product_id"),
    'rules[0].idField: expected a field of its own, got "product_id", which is also referenceField ("product_id")',
  );
  assert.equal(
    ruleError("pattern: subset, sortField: reviews"),
    'rules[0].sortField: expected a field of its own, got "reviews", which is also arrayField ("reviews")',
  );
});

void test("a field inside another of the same rule is refused", () => {
  const collide = distinctFields(["arrayField", "countField"]);
  const issues: unknown[] = [];
  const ctx = { addIssue: (issue: unknown) => issues.push(issue) } as unknown as Parameters<
    typeof collide
  >[1];
  collide({ arrayField: "history", countField: "history.count" }, ctx);
  collide({ arrayField: "_id.history", countField: "count" }, ctx);
  assert.deepEqual(issues, [
    {
      code: "custom",
      path: ["countField"],
      message: 'expected a field of its own, got "history.count", overlapping arrayField ("history")',
    },
    {
      code: "custom",
      path: ["arrayField"],
      message: 'expected a field other than "_id", which the sidecar sets itself, got "_id.history"',
    },
  ]);
});

void test("the seeds' rules and a rule renaming every field collide nowhere", () => {
  assert.doesNotThrow(() => loadConfig({ env: {} }));
  assert.doesNotThrow(() =>
    ruleErrorFree(
      "pattern: outlier, arrayField: buyers, flagField: more, referenceField: book, sequenceField: n, overflowArrayField: buyers_extra",
    ),
  );
});

function ruleErrorFree(rule: string): void {
  loadConfig({ file: file("distinct.yaml", `rules:\n  - ${rule.replace(/, /g, "\n    ")}\n`), env: {} });
}

void test("a configuration value or key of 1 MiB is quoted cut short, with its size", () => {
  const long = "x".repeat(1 << 20);
  const settings = {
    http: { host: long },
    [long]: 1,
    rules: [{ pattern: "outlier", collection: `a${long}` }],
  };
  const message = errorOf(() =>
    loadConfig({ file: file("long-values.json", JSON.stringify(settings)), env: {} }),
  );
  assert.ok(message.length < 4000, `a message of ${message.length} characters`);
  assert.match(message, /http\.host: .*, got "x+…" \(1048576 bytes\)/);
  assert.match(message, /unknown key "x+…" \(1048576 bytes\)/);
});

void test("a long connection string that is no MongoDB one is masked, then cut short", () => {
  const message = errorOf(() =>
    loadConfig({ env: { MONGODB_URI: `postgres://user:s3cret@${"h".repeat(1 << 20)}/db` } }),
  );
  assert.ok(message.length < 1000, `a message of ${message.length} characters`);
  assert.doesNotMatch(message, /s3cret/);
  assert.match(message, /\(1048\d{3} bytes\)/);
});
