// `npm run soak [-- --seed N] [--seconds N] [--replicas N]`: one soak run against the embedded server (or
// MONGODB_URI, in a fresh database), one summary line, and exit status 1 with the violated
// invariants when any fails. The seed replays a run's choices.
import { parseArgs } from "node:util";
import { startTestMongo, uniqueDatabaseName } from "../test/support/mongo.js";
import { runSoak, type SoakResult } from "./run-soak.js";
import { largeWritesDone } from "./workload.js";

function summary(result: SoakResult): string {
  const verdict = result.violations.length === 0 ? "ok" : `${result.violations.length} violated`;
  return (
    `soak seed=${result.seed} duration=${result.seconds}s replicas=${result.replicas} writes=${result.writes} elements=${result.elements} ` +
    `corrections=${result.corrections} kills=${result.kills} sigterms=${result.terminations} stops=${result.stops} ` +
    `takeovers=${result.takeovers} partition-terms=${result.partitionTerms} large=${largeWritesDone()} invariants: ${verdict}`
  );
}

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    seconds: { type: "string", default: "120" },
    replicas: { type: "string", default: "2" },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
const seconds = Number(values.seconds);
const replicas = Number(values.replicas);
// At most 26 replicas: they are named replica-a to replica-z.
if (
  !Number.isInteger(seed) ||
  !(seconds > 0) ||
  !Number.isInteger(replicas) ||
  replicas < 1 ||
  replicas > 26
) {
  console.error("usage: npm run soak -- [--seed N] [--seconds N] [--replicas 1-26]");
  process.exit(2);
}

const mongo = await startTestMongo();
const database = uniqueDatabaseName("soak");
try {
  const result = await runSoak({ uri: mongo.uri, database, seed, seconds, replicas });
  console.log(summary(result));
  for (const violation of result.violations) console.log(`  violated: ${violation}`);
  if (result.violations.length > 0) console.log(`  replica logs: ${result.logDir}`);
  process.exitCode = result.violations.length === 0 ? 0 : 1;
} finally {
  await mongo.client.db(database).dropDatabase();
  await mongo.close();
}
