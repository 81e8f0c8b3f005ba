// Type-checks the TypeScript x-codeSamples of openapi.yaml and emulator.yaml,
// strictly, against the client in clients/typescript: each sample is written
// as a module next to that client's sources (its import of the published
// package rewritten to reach them) and tsc checks them all with the
// client's compiler options.
//
// Usage (from the repository root, after npm ci in clients/typescript):
//   node docs/check-ts-samples.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

const client = "clients/typescript";
const require = createRequire(join(process.cwd(), client, "package.json"));
const { parse } = require("yaml");
const pkg = JSON.parse(readFileSync(join(client, "package.json"), "utf8")).name;

const dir = mkdtempSync(join(client, ".samples-"));
try {
  const files = [];
  for (const contract of ["openapi.yaml", "emulator.yaml"]) {
    const spec = parse(readFileSync(contract, "utf8"));
    let found = 0;
    for (const item of Object.values(spec.paths)) {
      for (const op of Object.values(item)) {
        for (const s of op["x-codeSamples"] ?? []) {
          if (s.lang !== "TypeScript") continue;
          const file = join(dir, `${contract.replace(/\.yaml$/, "")}-${op.operationId}.ts`);
          // Samples import the published package, as users do; here its
          // sources stand in for it.
          if (/from "\.{1,2}\//.test(s.source)) {
            throw new Error(`${contract}: ${op.operationId}: the TypeScript sample imports a path of this repository, not "${pkg}"`);
          }
          const src = s.source.replaceAll(`from "${pkg}"`, 'from "../src/index.js"');
          writeFileSync(file, src);
          files.push(relative(client, file));
          found++;
        }
      }
    }
    if (found === 0) throw new Error(`${contract} has no TypeScript sample`);
  }
  const base = JSON.parse(readFileSync(join(client, "tsconfig.json"), "utf8"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    extends: "../tsconfig.json",
    compilerOptions: { ...base.compilerOptions, rootDir: "..", noEmit: true },
    include: files.map((f) => relative(relative(client, dir), f)),
  }));
  execFileSync(join(client, "node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
  console.log(`${files.length} TypeScript samples type-check`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
