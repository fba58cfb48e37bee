// The sidecar's tests get their MongoDB where the embedded server's own tests do: a real
// replica set when MONGODB_URI is set, otherwise the embedded server (one definition, kept
// beside the server it starts).
export * from "../../packages/mongodb-embedded/test/support/mongo.js";
