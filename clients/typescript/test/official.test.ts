// ArcGIS REST JS against portald over HTTPS, as users run it: portald writes its certificate, and the client's
// Node.js process, started after, trusts it through NODE_EXTRA_CA_CERTS (read when Node.js starts, so the
// client cannot run in this process). The flows are official/rest-js.test.ts; the README's JavaScript snippet
// (README.md, "Use the portal's own clients") runs as written, against portald as `make run` serves it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startPortald, type Portald } from "./portald.js";

const here = path.dirname(fileURLToPath(import.meta.url)); // build/test
const pkg = path.resolve(here, "..", ".."); // clients/typescript

/** Runs node with args, trusting `certFile` as a user does; rejects with the output when it exits non-zero. */
async function nodeTrusting(certFile: string, args: string[], env: Record<string, string>): Promise<string> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base["NODE_TLS_REJECT_UNAUTHORIZED"];
  delete base["NODE_OPTIONS"];
  delete base["NODE_TEST_CONTEXT"]; // set by the runner of this file: the child would report to it, not print
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      cwd: pkg,
      env: { ...base, ...env, NODE_EXTRA_CA_CERTS: certFile },
      maxBuffer: 16 << 20,
    });
    return stdout;
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    assert.fail(`node ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

describe("ArcGIS REST JS 4.10.2 over HTTPS, with a context", () => {
  let server: Portald;
  before(async () => {
    server = await startPortald({ tls: true, context: "/portal" });
  });
  after(async () => {
    await server?.stop();
  });

  test("every flow of official/rest-js.test.ts passes, none skipped", async () => {
    assert.ok(server.certFile);
    const source = readFileSync(path.join(pkg, "test", "official", "rest-js.test.ts"), "utf8");
    const want = source.match(/^\s*test\(/gm)?.length ?? 0;
    const tap = await nodeTrusting(server.certFile, ["--test", "--test-reporter=tap", path.join(here, "official", "rest-js.test.js")], {
      PORTAL_URL: server.base,
      PORTAL_CERT: server.certFile,
    });
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1]);
    assert.deepEqual(
      { pass: count("pass"), fail: count("fail"), skipped: count("skipped"), todo: count("todo"), cancelled: count("cancelled") },
      { pass: want, fail: 0, skipped: 0, todo: 0, cancelled: 0 },
      tap,
    );
  });
});

describe("the README's JavaScript snippet", () => {
  let server: Portald;
  const dir = path.join(pkg, "build", "readme-official");
  before(async () => {
    server = await startPortald({ tls: true });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("runs as written against portald over HTTPS and prints what it states", async () => {
    assert.ok(server.certFile);
    const readme = readFileSync(path.join(pkg, "..", "..", "README.md"), "utf8");
    const section = readme.split(/^## Use the portal's own clients$/m)[1]?.split(/^## /m)[0] ?? "";
    const snippet = /^```js\n([\s\S]*?)^```$/m.exec(section)?.[1];
    assert.ok(snippet, "README.md: no ```js block in the section \"Use the portal's own clients\"");
    // The snippet is written for `PORTAL_TLS=true make run`; this portald listens on another port.
    const origin = "https://127.0.0.1:8080";
    assert.equal(snippet.split(origin).length, 2, `the snippet names ${origin} once`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "try.mjs"); // beside node_modules: the packages resolve as after npm install
    writeFileSync(file, snippet.replace(origin, new URL(server.base).origin));
    const out = await nodeTrusting(server.certFile, [file], {});
    assert.deepEqual(out.trimEnd().split("\n"), [
      "Demo Organization - ArcGIS Enterprise - signed in as jsmith",
      "Roads moved to 1a9ad803da604628b08c968ce602a231",
      "Roads moved to /",
    ]);
  });
});
