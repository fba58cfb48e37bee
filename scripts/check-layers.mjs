// The layering that `madge --circular` does not see (DEVELOPERS.md, Layout): a pattern imports
// nothing of the core that drives it, the core reaches a pattern only through its driver, and
// the workspace packages import nothing of the sidecar. Run by `npm test`.
import madge from "madge";

const SERVER = "packages/mongodb-embedded/";
const FIELD_ORDER = "packages/bson-field-order/";
// Folders of what the patterns share (BSON values, event filters, reads, array helpers), not patterns.
const SHARED_FOLDERS = ["bson", "events", "reads", "arrays"];
const PATTERN_FOLDER = new RegExp(`^src/patterns/(?!(?:${SHARED_FOLDERS.join("|")})/)[^/]+/`);

const RULES = [
  {
    applies: (file) => file.startsWith("src/patterns/"),
    forbids: (dependency) => dependency.startsWith("src/stream/") || dependency.startsWith("src/cli/"),
    why: "patterns/ is the pure core's: stream/ and cli/ call it, never the other way",
  },
  {
    applies: (file) => file.startsWith("src/") && !file.startsWith("src/patterns/"),
    forbids: (dependency) => PATTERN_FOLDER.test(dependency),
    why: "outside patterns/, a pattern is reached through its driver (patterns/registry.ts)",
  },
  {
    applies: (file) => file.startsWith(SERVER),
    forbids: (dependency) => !dependency.startsWith(SERVER),
    why: "the embedded server package imports nothing of the sidecar",
  },
  {
    applies: (file) => file.startsWith(FIELD_ORDER),
    forbids: (dependency) => !dependency.startsWith(FIELD_ORDER),
    why: "bson-field-order imports nothing of the sidecar or the embedded server",
  },
];

const graph = await madge(
  ["src", `${SERVER}src`, `${SERVER}test`, `${FIELD_ORDER}src`, `${FIELD_ORDER}test`],
  {
    fileExtensions: ["ts"],
    baseDir: process.cwd(),
  },
);
const broken = Object.entries(graph.obj()).flatMap(([file, dependencies]) =>
  RULES.filter((rule) => rule.applies(file)).flatMap((rule) =>
    dependencies.filter(rule.forbids).map((dependency) => `${file} imports ${dependency}: ${rule.why}`),
  ),
);
for (const line of broken) console.error(line);
if (broken.length > 0) process.exit(1);
console.log(`layers kept: ${Object.keys(graph.obj()).length} files`);
