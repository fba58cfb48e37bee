import { test } from "node:test";
import assert from "node:assert/strict";
import { helpText, parseCliArgs } from "../../../src/cli/args.js";
import { UsageError } from "../../../src/errors.js";

void test("no arguments means run", () => {
  assert.equal(parseCliArgs([]).command, "run");
});

void test("sweep takes --dry-run and --config", () => {
  const args = parseCliArgs(["sweep", "--dry-run", "--config", "rules.yaml"]);
  assert.deepEqual(
    { command: args.command, dryRun: args.dryRun, configFile: args.configFile },
    { command: "sweep", dryRun: true, configFile: "rules.yaml" },
  );
});

void test("sweep reports as text unless --output json is given; another format is a usage error", () => {
  assert.equal(parseCliArgs(["sweep"]).output, "text");
  assert.equal(parseCliArgs(["sweep", "--dry-run", "--output", "json"]).output, "json");
  assert.throws(
    () => parseCliArgs(["sweep", "--output", "xml"]),
    /--output: expected text or json, got "xml"/,
  );
  assert.throws(() => parseCliArgs(["run", "--output", "json"]), /--output is not an option of "run"/);
});

void test("sweep --request takes --rule and --no-wait, which nothing else takes", () => {
  assert.deepEqual(parseCliArgs(["sweep", "--request"]).sweepRequest, { rule: undefined, wait: true });
  assert.deepEqual(parseCliArgs(["sweep", "--request", "--rule", "r", "--no-wait"]).sweepRequest, {
    rule: "r",
    wait: false,
  });
  assert.equal(parseCliArgs(["sweep"]).sweepRequest, undefined);
  assert.throws(() => parseCliArgs(["sweep", "--rule", "r"]), /--rule goes with --request/);
  assert.throws(
    () => parseCliArgs(["sweep", "--request", "--dry-run"]),
    /--dry-run does not go with --request/,
  );
});

void test("dev-server reads its port as a number", () => {
  assert.equal(parseCliArgs(["dev-server", "--port", "27018"]).port, 27018);
});

void test("dev-server reads the embedded server's transaction lifetime and secondary lag", () => {
  const args = parseCliArgs([
    "dev-server",
    "--transaction-lifetime-limit-seconds",
    "5",
    "--secondary-lag-ms",
    "2000",
  ]);
  assert.deepEqual(args.devServer, { transactionLifetimeLimitSeconds: 5, secondaryLagMs: 2000 });
  assert.throws(
    () => parseCliArgs(["dev-server", "--transaction-lifetime-limit-seconds", "0"]),
    /--transaction-lifetime-limit-seconds: expected a whole number from 1, got "0"/,
  );
});

void test("a port that is not a number is rejected, naming the option", () => {
  assert.throws(
    () => parseCliArgs(["dev-server", "--port", "http"]),
    (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /--port: expected a port number/);
      return true;
    },
  );
});

void test("an unknown command is rejected with the list of commands", () => {
  assert.throws(() => parseCliArgs(["swep"]), /unknown command "swep": expected one of run, sweep/);
});

void test("an unknown option is a usage error", () => {
  assert.throws(() => parseCliArgs(["--verbose"]), UsageError);
});

void test("an option of another command is rejected", () => {
  assert.throws(() => parseCliArgs(["run", "--dry-run"]), /--dry-run is not an option of "run"/);
});

void test("--config needs a value", () => {
  assert.throws(() => parseCliArgs(["--config"]), UsageError);
});

void test("run, sweep and check-config take --embedded; dev-server does not", () => {
  for (const command of ["run", "sweep", "check-config"])
    assert.equal(parseCliArgs([command, "--embedded"]).embedded, true);
  assert.throws(
    () => parseCliArgs(["dev-server", "--embedded"]),
    /--embedded is not an option of "dev-server"/,
  );
});

void test("an unknown option is named in a few words, and the usage comes with it", () => {
  assert.throws(
    () => parseCliArgs(["sweep", "--verbose"]),
    (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.message, 'unknown option "--verbose"');
      assert.match(String(error.context.usage), /^Usage: mongo-pattern-sidecar sweep \[options\]/);
      return true;
    },
  );
});

void test("--help after a command asks for that command's help, alone for the overview", () => {
  assert.match(helpText(parseCliArgs(["dev-server", "--help"])), /--port N +port to listen on/);
  assert.match(helpText(parseCliArgs(["--help"])), /^Commands:$/m);
});
