// Module customization hooks (node:module register) that append the URL of every module
// loaded through the ESM loader to the file named at registration.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  appendFileSync(file, `${url}\n`);
  return loaded;
}
