// A process that starts a portal and is then killed outright (as by a CI timeout) stops nothing;
// portald, whose standard input was that process's pipe, ends on its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

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

test("portald ends with the process that started it", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60000 });
  assert.equal(out.signal, "SIGKILL", out.stderr);
  const pid = Number(out.stdout.trim());
  assert.ok(pid > 0, out.stdout);
  const deadline = Date.now() + 30000;
  while (alive(pid)) {
    assert.ok(Date.now() < deadline, `portald ${pid} still runs 30 s after the process that started it was killed`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
