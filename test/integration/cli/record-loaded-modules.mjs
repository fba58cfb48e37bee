// Preloaded with `--import`: records every module the process loads in LOADED_MODULES_FILE.
import { register } from "node:module";

register("./loaded-modules-hooks.mjs", import.meta.url, { data: { file: process.env.LOADED_MODULES_FILE } });
