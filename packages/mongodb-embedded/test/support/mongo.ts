// This package's tests get their MongoDB from its `./testing` entry (src/testing.ts), as the
// sidecar's tests do.
export * from "../../src/testing.js";
