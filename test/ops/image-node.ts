// How the production image starts node, read from its Dockerfile: the V8 flags of its
// ENTRYPOINT and its NODE_OPTIONS. The image tests and the benches start the sidecar with
// them, so that it runs as the deployed one does.
import { readFileSync } from "node:fs";

export interface ImageNode {
  /** The ENTRYPOINT's node binary, in the runtime image. */
  binary: string;
  /** The ENTRYPOINT's arguments between node and dist/main.js. */
  flags: string[];
  /** ENV NODE_OPTIONS. */
  options: string;
}

export function imageNode(): ImageNode {
  const dockerfile = readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8");
  const argv = entrypoint(dockerfile);
  return {
    binary: argv[0]!,
    flags: argv.slice(1, argv.indexOf("dist/main.js")),
    options: nodeOptions(dockerfile),
  };
}

function nodeOptions(dockerfile: string): string {
  const options = /^ENV NODE_OPTIONS="([^"]*)"/m.exec(dockerfile)?.[1];
  if (options === undefined) throw new Error("the Dockerfile sets no NODE_OPTIONS");
  return options;
}

function entrypoint(dockerfile: string): string[] {
  const text = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  const argv = text === undefined ? undefined : (JSON.parse(text) as string[]);
  const main = argv?.indexOf("dist/main.js") ?? -1;
  if (!argv || main < 1) throw new Error('the Dockerfile has no ENTRYPOINT ["node", ..., "dist/main.js"]');
  return argv;
}
