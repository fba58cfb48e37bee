// The embedded server's command line (the package's cli.ts, same arguments and output) as the
// benches run it: started with --expose-gc, it also runs a full collection of its heap when its
// parent asks over the IPC channel ("collect-garbage"), and answers "collected". A bench asks
// before each measurement, as it collects its own garbage: the server's full collections, which
// a mongod does not have, then start from the same state in each, rather than falling in one
// measurement by chance.
import "../packages/mongodb-embedded/src/cli.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("bench/embedded-server-main.ts must run with node --expose-gc");

process.on("message", (message) => {
  if (message !== "collect-garbage") return;
  gc();
  process.send?.("collected");
});
