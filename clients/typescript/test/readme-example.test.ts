// The example of clients/README.md (test/readme-example.ts, compiled beside this file) run as written against
// portald: it exits 0 and prints the banner read back, one result per id and ORG_1132.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { demo, startPortald, type Portald } from "./portald.js";

let server: Portald;
before(async () => {
  server = await startPortald();
});
after(async () => {
  await server?.stop();
});

const example = path.join(path.dirname(fileURLToPath(import.meta.url)), "readme-example.js");

test("the README example runs against portald and prints what it states", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [example], { env: { ...process.env, PORTAL_URL: server.base } });
  assert.deepEqual(stdout.trimEnd().split("\n"), [
    'banner: {"bgColor":"grey","enabled":true,"fontColor":"#FFFFFF","text":"Read-only until 18:00 UTC"}',
    `moveItems: ${demo.roads} moved`,
    `moveItems: ${demo.parcels} Item already exists in target folder`,
    "assignMemberCategorySchema: ORG_1132 Schema exceeds max tree size: 4 levels, the maximum is 3",
  ]);
});
