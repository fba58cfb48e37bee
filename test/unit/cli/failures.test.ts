import { test } from "node:test";
import assert from "node:assert/strict";
import { EXIT_STATUS, listenFailure, type ListenTarget } from "../../../src/cli/failures.js";

const HTTP: ListenTarget = {
  purpose: "serve the HTTP endpoints",
  host: "0.0.0.0",
  port: 80,
  choosePort: "set http.port (SIDECAR_HTTP_PORT) to",
};

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code}`), { code });
}

void test("a port this user may not bind is one line naming it and a port to pick instead, with exit 6", () => {
  const failure = listenFailure(systemError("EACCES"), HTTP);
  assert.equal(failure?.exitStatus, EXIT_STATUS.portUnavailable);
  assert.equal(
    failure.message,
    "cannot serve the HTTP endpoints: port 80 on 0.0.0.0 may not be used by this user; set http.port (SIDECAR_HTTP_PORT) to a free port above 1023",
  );
});

void test("an error that is not about the address stays the caller's to report", () => {
  assert.equal(listenFailure(systemError("EMFILE"), HTTP), undefined);
  assert.equal(listenFailure(new Error("no code"), HTTP), undefined);
  assert.equal(listenFailure(undefined, HTTP), undefined);
});

void test("an http.host name that resolves to nothing is one line naming the setting, with exit 6", () => {
  const failure = listenFailure(systemError("ENOTFOUND"), {
    ...HTTP,
    host: "sidecar.invalid",
    hostSetting: "http.host",
  });
  assert.equal(failure?.exitStatus, EXIT_STATUS.portUnavailable);
  assert.equal(
    failure.message,
    "cannot serve the HTTP endpoints: sidecar.invalid (http.host) does not resolve to an address; set http.host in the configuration file to one of this machine's addresses, or to 0.0.0.0 for all of them",
  );
});

void test("an address problem of a host nobody chooses stays the caller's to report", () => {
  assert.equal(listenFailure(systemError("EADDRNOTAVAIL"), HTTP), undefined);
});
