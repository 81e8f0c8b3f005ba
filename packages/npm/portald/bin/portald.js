#!/usr/bin/env node
// `npx portald`: the binary of this platform's package, with the arguments given, its exit status passed on.
import { spawnSync } from "node:child_process";
import { binaryPath } from "../index.js";

const r = spawnSync(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`portald: ${r.error.message}`);
  process.exit(1);
}
process.exit(r.status ?? (r.signal ? 128 : 1));
