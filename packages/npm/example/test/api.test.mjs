// The package's own API, call by call, over HTTPS: what startPortal promises besides the happy path above.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { PortalError, demo, startPortal } from "portald";

// The directories this file creates (seeds), each removed by the test that made it; the last test checks
// that none is left, nor the directory of the portal started here, once the portals have stopped.
const created = [];
const seedDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "portald-seed-"));
  created.push(dir);
  return dir;
};

let portal;
before(async () => {
  portal = await startPortal({ tls: true });
});
after(() => portal?.stop());

/** A GET of the portal's API as a client that trusts caFile. */
const get = (p, token) =>
  new Promise((resolve, reject) => {
    const u = new URL(`${portal.restUrl}${p}?f=json&token=${token}`);
    https
      .get(u, { ca: readFileSync(portal.caFile) }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve(JSON.parse(body)));
      })
      .on("error", reject);
  });

test("HTTPS with the certificate to trust", async () => {
  assert.match(portal.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(portal.restUrl, `${portal.url}/sharing/rest`);
  assert.ok(portal.caFile && existsSync(portal.caFile));
  assert.equal((await get("/portals/self", demo.adminToken)).id, demo.orgId);
});

test("snapshots, faults, journal, clock, organizations", async () => {
  await portal.reset();
  await portal.snapshot("a");
  assert.deepEqual((await portal.snapshots()).map((s) => s.name), ["a"]);
  await portal.deleteSnapshot("a");
  await assert.rejects(portal.restore("a"), (e) => e instanceof PortalError && e.status === 404);

  const f = await portal.faults.add({ operation: "getItem", status: 503, delay: 1 });
  assert.equal(f.delay, "1ms");
  assert.deepEqual((await portal.faults.list()).map((x) => x.id), [f.id]);
  assert.equal((await get(`/content/items/${demo.roads}`, demo.memberToken)).error.code, 503);
  const [call] = await portal.journal({ operation: "getItem" });
  assert.equal(call?.fault, f.id);
  await portal.faults.remove(f);
  assert.deepEqual(await portal.faults.list(), []);
  await assert.rejects(portal.faults.add({ operation: "noSuchOperation", error: { code: 400 } }), (e) => e instanceof PortalError && e.status === 400);
  await portal.clearJournal();
  assert.deepEqual(await portal.journal(), []);

  const before = Date.parse((await portal.clock.get()).now);
  const later = Date.parse((await portal.clock.advance("25h")).now);
  assert.ok(later - before >= 25 * 3600 * 1000);
  assert.match((await portal.clock.set(new Date("2030-01-02T03:04:05Z"))).now, /^2030-01-02T03:04:05/);
  assert.equal((await portal.clock.reset()).offset, "0s");

  const org = { id: "AAAABBBBCCCCDDDD", name: "Tests", users: [{ username: "tester", password: "tester-password", role: "org_admin", tokens: ["tester-token"] }] };
  assert.equal(await portal.organizations.add(org), org.id);
  assert.equal((await get("/portals/self", "tester-token")).id, org.id);
  await assert.rejects(portal.organizations.add(org), (e) => e instanceof PortalError && e.status === 409);
  await portal.organizations.remove(org.id);
  assert.equal((await get("/portals/self", "tester-token")).error.code, 498);
});

test("a seed of one's own, over HTTP; stop ends the process", async () => {
  const dir = seedDir();
  const seed = path.join(dir, "seed.json");
  writeFileSync(seed, JSON.stringify({ organizations: [{ id: "1111222233334444", name: "Own", users: [{ username: "own", password: "own-password", role: "org_admin", tokens: ["own-token"] }] }] }));
  try {
    const own = await startPortal({ seed });
    try {
      assert.match(own.url, /^http:\/\//);
      assert.equal(own.caFile, undefined);
      assert.deepEqual(own.tokens, {});
      const res = await fetch(`${own.restUrl}/portals/self?f=json&token=own-token`);
      assert.equal((await res.json()).id, "1111222233334444");
    } finally {
      await own.stop();
    }
    assert.notEqual(own.process.exitCode ?? own.process.signalCode, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a broken seed stops start-up with portald's reason", async () => {
  const dir = seedDir();
  const seed = path.join(dir, "seed.yaml");
  writeFileSync(seed, "organizations: [{id: x}]\n");
  try {
    await assert.rejects(startPortal({ seed }), /portald exited/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("no directory of this file's is left once its portals stop", async () => {
  const dirs = [...created, path.dirname(portal.caFile)];
  assert.equal(created.length, 2);
  await portal.stop();
  assert.deepEqual(dirs.filter((d) => existsSync(d)), []);
});
