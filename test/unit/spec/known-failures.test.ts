import { test } from "node:test";
import assert from "node:assert/strict";
import { KnownFailures } from "../../spec/known-failures.js";
import { RunReport } from "../../spec/report.js";

const entry = {
  file: "crud/distinct-collation.json",
  description: "distinct with collation",
  reason: "server: x",
};

function reportWith(entries = [entry]) {
  const lines: string[] = [];
  return { report: new RunReport(new KnownFailures(entries), (line) => lines.push(line)), lines };
}

void test("a known failure matches a run file whose path ends with the listed file", () => {
  const known = new KnownFailures([entry]);
  assert.equal(known.find("../shared/spec-tests/crud/distinct-collation.json", entry.description), entry);
  assert.equal(known.find("crud/distinct-collation.json", entry.description), entry);
  assert.equal(known.find("other/crud-distinct-collation.json", entry.description), undefined);
});

void test("a listed failure is reported as known and does not fail the run", () => {
  const { report, lines } = reportWith();
  report.add({
    file: entry.file,
    description: entry.description,
    outcome: { status: "fail", message: "at $: x" },
  });
  report.finish("kf.json");
  assert.equal(report.succeeded, true);
  assert.match(
    lines[0] ?? "",
    /^known crud\/distinct-collation.json :: distinct with collation — at \$: x \[server: x\]$/,
  );
  assert.equal(lines.at(-1), "0 passed, 1 failed, 0 skipped");
});

void test("an unlisted failure fails the run", () => {
  const { report, lines } = reportWith([]);
  report.add({ file: "crud/a.json", description: "t", outcome: { status: "fail", message: "boom" } });
  assert.equal(report.succeeded, false);
  assert.equal(lines[0], "FAIL crud/a.json :: t — boom");
});

void test("a listed test that passes is reported with a warning but keeps the run green", () => {
  const { report, lines } = reportWith();
  report.add({ file: entry.file, description: entry.description, outcome: { status: "pass" } });
  report.finish("kf.json");
  assert.equal(report.succeeded, true);
  assert.ok(lines.some((line) => line.startsWith("warning: listed in kf.json but passes now")));
});

void test("skips print their reason and count as skipped", () => {
  const { report, lines } = reportWith([]);
  report.add({
    file: "f.json",
    description: "t",
    outcome: { status: "skip", reason: "runOnRequirements: x" },
  });
  report.finish("kf.json");
  assert.deepEqual(lines, ["skip f.json :: t (runOnRequirements: x)", "0 passed, 0 failed, 1 skipped"]);
});
