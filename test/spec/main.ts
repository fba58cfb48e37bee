// npm run spec -- [--known-failures FILE] [--timeout-ms N] <files or folders>
// Runs unified-format spec test files against MONGODB_URI, or else an embedded server started here.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { MongoClient } from "mongodb";
import { startEmbeddedServer } from "@pattern-sidecar/mongodb-embedded";
import { KnownFailures } from "./known-failures.js";
import { asError } from "./outcomes.js";
import { RunReport } from "./report.js";
import { runTestFile } from "./run-file.js";
import { discoverServerFacts } from "./server-facts.js";

interface CliOptions {
  knownFailuresPath: string;
  timeoutMs: number;
  roots: string[];
}

function parseArguments(argv: string[]): CliOptions {
  const options: CliOptions = {
    knownFailuresPath: "test/spec/known-failures.json",
    timeoutMs: 10_000,
    roots: [],
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === "--known-failures") options.knownFailuresPath = requireValue(argv, ++index, argument);
    else if (argument === "--timeout-ms") options.timeoutMs = Number(requireValue(argv, ++index, argument));
    else if (argument.startsWith("--")) throw new Error(`unknown option ${argument}`);
    else options.roots.push(argument);
  }
  if (options.roots.length === 0)
    throw new Error("usage: npm run spec -- [--known-failures FILE] <files or folders>");
  return options;
}

function requireValue(argv: string[], index: number, option: string): string {
  const value = argv[index];
  if (value === undefined) throw new Error(`${option} needs a value`);
  return value;
}

/** Test files under each root, sorted, each with the name it is reported under. */
function collectTestFiles(roots: string[]): { path: string; name: string }[] {
  const files: { path: string; name: string }[] = [];
  const walk = (path: string, root: string) => {
    if (statSync(path).isDirectory()) {
      for (const child of readdirSync(path).sort()) walk(join(path, child), root);
    } else if (/\.(json|ya?ml)$/.test(path)) {
      files.push({ path, name: path === root ? path : relative(root, path) });
    }
  };
  for (const root of roots) walk(root, root);
  return files;
}

async function main(): Promise<number> {
  const options = parseArguments(process.argv.slice(2));
  const knownFailures = KnownFailures.load(options.knownFailuresPath);
  const files = collectTestFiles(options.roots);
  // Resources are released in reverse order of acquisition, whatever happens in between.
  const releasers: (() => Promise<void>)[] = [];
  try {
    let uri = process.env.MONGODB_URI;
    if (!uri) {
      const server = await startEmbeddedServer({ host: "127.0.0.1", port: 0 });
      releasers.push(() => server.close());
      uri = server.uri;
    }
    const internalClient = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    releasers.push(() => internalClient.close());
    const facts = await discoverServerFacts(internalClient, uri);
    const report = new RunReport(knownFailures, (line) => console.log(line));
    const warned = new Set<string>();
    const warn = (message: string) => {
      if (!warned.has(message)) console.log(`warning: ${message}`);
      warned.add(message);
    };
    const env = { uri, internalClient, facts, timeoutMs: options.timeoutMs, warn };
    for (const file of files) await runTestFile(file.path, file.name, env, (entry) => report.add(entry));
    report.finish(options.knownFailuresPath);
    return report.succeeded ? 0 : 1;
  } finally {
    for (const release of releasers.reverse())
      await release().catch((error: unknown) => console.error(asError(error)));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`spec runner: ${asError(error).message}`);
    process.exit(2);
  },
);
