import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Long } from "bson";
import { ServerError } from "../../../src/errors.js";
import {
  applyUpdate,
  compileFilter,
  evaluateLetVariables,
  projectDocument,
  runPipeline,
} from "../../../src/query/index.js";

const withCode = (code: number, message?: RegExp) => (error: unknown) =>
  error instanceof ServerError &&
  error.code === code &&
  (message === undefined || message.test(error.message));

void describe("evaluateLetVariables", () => {
  void it("keeps plain values as sent, BSON types included", () => {
    const big = Long.fromString("9007199254740993");
    assert.deepEqual(evaluateLetVariables({ id: big, name: "eurusd", tags: ["a"] }), {
      id: big,
      name: "eurusd",
      tags: ["a"],
    });
  });

  void it("evaluates expressions once, $literal keeping a dollar string", () => {
    const variables = evaluateLetVariables({
      y: { $literal: "$bar" },
      sum: { $add: [1, 2] },
      r: { $rand: {} },
    });
    assert.equal(variables.y, "$bar");
    assert.equal(variables.sum, 3);
    assert.equal(typeof variables.r, "number");
  });

  void it("lets a later variable use an earlier one", () => {
    assert.equal(evaluateLetVariables({ a: 2, b: { $multiply: ["$$a", 10] } }).b, 20);
  });

  void it("accepts names with a lowercase or non-ASCII start, then letters, digits and _", () => {
    assert.deepEqual(Object.keys(evaluateLetVariables({ x_1: 1, xY: 2, été: 3 })), ["x_1", "xY", "été"]);
  });

  void it("refuses names starting with an uppercase letter, a digit or _ (FailedToParse)", () => {
    for (const name of ["X", "1x", "_x"]) {
      assert.throws(
        () => evaluateLetVariables({ [name]: 1 }),
        withCode(9, /^Invalid 'let' parameter :: caused by :: '.*' starts with an invalid character/),
      );
    }
  });

  void it("refuses names with other characters, naming the character", () => {
    assert.throws(
      () => evaluateLetVariables({ "x-y": 1 }),
      withCode(9, /'x-y' contains an invalid character for a variable name: '-'/),
    );
  });

  void it("refuses the empty name", () => {
    assert.throws(() => evaluateLetVariables({ "": 1 }), withCode(9, /empty variable names are not allowed/));
  });

  void it("refuses to redefine system variables: NOW and CLUSTER_TIME are internal constants", () => {
    assert.throws(() => evaluateLetVariables({ NOW: new Date() }), withCode(4738901));
    assert.throws(() => evaluateLetVariables({ CLUSTER_TIME: 1 }), withCode(4738901));
    assert.throws(() => evaluateLetVariables({ ROOT: 1 }), withCode(9));
  });

  void it("refuses expressions that read the document", () => {
    assert.throws(() => evaluateLetVariables({ a: "$field" }), withCode(4890500));
    assert.throws(() => evaluateLetVariables({ a: { $add: ["$n", 1] } }), withCode(4890500));
    assert.throws(() => evaluateLetVariables({ a: "$$ROOT" }), withCode(4890500));
  });

  void it("answers an undefined variable with mongod's code", () => {
    assert.throws(() => evaluateLetVariables({ a: "$$missing" }), withCode(17276, /missing/));
  });
});

void describe("let variables in use", () => {
  const variables = evaluateLetVariables({ id: 2, label: "two" });

  void it("reach $expr in a filter", () => {
    const matches = compileFilter({ $expr: { $eq: ["$_id", "$$id"] } }, { variables });
    assert.deepEqual([{ _id: 1 }, { _id: 2 }].filter(matches), [{ _id: 2 }]);
  });

  void it("reach $match and $project in a pipeline", () => {
    const result = runPipeline(
      [{ _id: 1 }, { _id: 2 }],
      [{ $match: { $expr: { $eq: ["$_id", "$$id"] } } }, { $project: { _id: 0, label: "$$label" } }],
      { collection: () => [], variables },
    );
    assert.deepEqual(result, [{ label: "two" }]);
  });

  void it("reach a $lookup sub-pipeline", () => {
    const result = runPipeline(
      [{ _id: 1 }],
      [{ $lookup: { from: "b", pipeline: [{ $match: { $expr: { $eq: ["$k", "$$id"] } } }], as: "j" } }],
      { collection: () => [{ k: 1 }, { k: 2 }], variables },
    );
    assert.deepEqual(result, [{ _id: 1, j: [{ k: 2 }] }]);
  });

  void it("reach a pipeline update and an expression projection", () => {
    assert.deepEqual(
      applyUpdate({ _id: 1 }, [{ $set: { label: "$$label" } }], { isInsert: false, variables }),
      {
        _id: 1,
        label: "two",
      },
    );
    assert.deepEqual(projectDocument({ _id: 1 }, { label: "$$label" }, undefined, variables), {
      _id: 1,
      label: "two",
    });
  });
});
