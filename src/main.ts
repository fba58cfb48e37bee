#!/usr/bin/env node
// Entry point: hands the arguments to the CLI and exits with its status.
import { runCli } from "./cli/run-cli.js";

process.exitCode = await runCli(process.argv.slice(2));
