// The sidecar's tests get their MongoDB where the embedded server's own tests do: a real
// replica set when MONGODB_URI is set, otherwise the embedded server (its `./testing` entry).
export * from "@pattern-sidecar/mongodb-embedded/testing";
