// What the helper leaves behind when a test process ends without stop(): killed outright (as by a CI
// timeout), its portald ends on its own, its standard input that process's pipe; ending by process.exit,
// portald is stopped and its directory removed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startPortal } from "portald";

const script = `
import { startPortal } from "portald";
const p = await startPortal();
console.log(p.process.pid);
process.kill(process.pid, "SIGKILL");
`;

/** Whether pid runs: gone from /proc, or a zombie, once it has exited. */
function alive(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1][0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits for portald pid to end, failing after 30 s; why says what ended its starter. */
async function ends(pid, why) {
  const deadline = Date.now() + 30000;
  while (alive(pid)) {
    assert.ok(Date.now() < deadline, `portald ${pid} still runs 30 s after the process that started it ${why}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("portald ends with the process that started it", { skip: process.platform !== "linux" && "reads /proc" }, async (t) => {
  // Its temporary directory, which nothing can remove once it is killed, goes under one removed here.
  const tmp = mkdtempSync(path.join(tmpdir(), "portald-killed-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script],
    { encoding: "utf8", timeout: 60000, env: { ...process.env, TMPDIR: tmp } });
  assert.equal(out.signal, "SIGKILL", out.stderr);
  const pid = Number(out.stdout.trim());
  assert.ok(pid > 0, out.stdout);
  await ends(pid, "was killed");
});

test("process.exit without stop() leaves no portald and no directory", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const exiting = `
import path from "node:path";
import { startPortal } from "portald";
const p = await startPortal({ tls: true });
console.log(p.process.pid, path.dirname(p.caFile));
process.exit(0);
`;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", exiting], { encoding: "utf8", timeout: 60000 });
  assert.equal(out.status, 0, out.stderr);
  const [pid, dir] = out.stdout.trim().split(" ");
  assert.ok(Number(pid) > 0 && dir, out.stdout);
  assert.equal(existsSync(dir), false, `${dir} is left behind`);
  await ends(Number(pid), "exited");
});

test("many portals at once: no warning of too many exit listeners", async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w.name);
  process.on("warning", onWarning);
  try {
    const portals = await Promise.all(Array.from({ length: 12 }, () => startPortal()));
    await Promise.all(portals.map((p) => p.stop()));
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.filter((n) => n === "MaxListenersExceededWarning"), []);
  } finally {
    process.off("warning", onWarning);
  }
});
