// The typed client of emulator.yaml against the reference server, and the portal's official JavaScript client
// meeting the faults it injects: an injected 499 is raised as ArcGISAuthError, and changes nothing.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { ArcGISAuthError, request, type IAuthenticationManager } from "@esri/arcgis-rest-request";
import { getPortalSettings } from "@esri/arcgis-rest-portal";
import { createEmulatorClient, EmulatorError, type EmulatorClient } from "../src/emulator.js";
import { demo, startPortald, type Portald } from "./portald.js";

let server: Portald;
let base: string;
let emu: EmulatorClient;
let admin: IAuthenticationManager;

before(async () => {
  server = await startPortald();
  base = server.base;
  emu = createEmulatorClient(new URL(base).origin);
  admin = { portal: base, getToken: async () => demo.adminToken };
});
after(async () => {
  await server?.stop();
});
beforeEach(async () => {
  await emu.reset();
});

const banner = (text: string) => ({ text, bgColor: "red", fontColor: "white", enabled: true });

test("an injected 499 is an ArcGISAuthError, fires once, and changes nothing", async () => {
  const rule = await emu.addFault({ operation: "updateSettings", error: { code: 499 } });
  assert.ok(rule.id);
  let raised: unknown;
  try {
    await request(`${base}/portals/self/settings/update`, { params: { informationalBanner: banner("never") }, authentication: admin });
  } catch (e) {
    raised = e;
  }
  assert.ok(raised instanceof ArcGISAuthError, `expected ArcGISAuthError, got ${String(raised)}`);
  assert.equal(raised.code, 499);
  const settings = await getPortalSettings(demo.portalId, { portal: base, authentication: admin });
  assert.equal(settings["informationalBanner"], undefined);

  // Spent: the next call goes through.
  await request(`${base}/portals/self/settings/update`, { params: { informationalBanner: banner("now") }, authentication: admin });
  const [spent] = await emu.faults();
  assert.deepEqual([spent?.fired, spent?.remaining], [1, 0]);

  const calls = await emu.requests({ operation: "updateSettings" });
  assert.deepEqual(
    calls.map((c) => [c.fault ?? null, c.answer.code ?? 0]),
    [
      [rule.id, 499],
      [null, 0],
    ],
  );
  // The journal holds the banner as JSON and the caller, never the token.
  assert.deepEqual(calls[1]?.params["informationalBanner"], banner("now"));
  assert.equal(calls[1]?.caller, "admin");
  assert.equal(JSON.stringify(calls).includes(demo.adminToken), false);
});

test("snapshot, restore, clock and organizations through the typed client", async () => {
  await emu.snapshot("clean");
  await request(`${base}/portals/self/settings/update`, { params: { informationalBanner: banner("changed") }, authentication: admin });
  await emu.restore("clean");
  const settings = await getPortalSettings(demo.portalId, { portal: base, authentication: admin });
  assert.equal(settings["informationalBanner"], undefined);
  assert.deepEqual(
    (await emu.snapshots()).map((s) => s.name),
    ["clean"],
  );

  const moved = await emu.advanceClock("2h");
  assert.notEqual(moved.offset, "0s");
  assert.equal((await emu.resetClock()).offset, "0s");

  await emu.createOrganization({ id: "TSORG", name: "TS", users: [{ username: "ts-admin", password: "pw", role: "org_admin", tokens: ["ts-token"] }] });
  const conflict = await emu.createOrganization({ id: "TSORG", name: "again" }).catch((e: unknown) => e);
  assert.ok(conflict instanceof EmulatorError && conflict.status === 409, String(conflict));
  await emu.deleteOrganization("TSORG");

  const refused = await emu.addFault({ operation: "noSuchOperation", error: { code: 500 } }).catch((e: unknown) => e);
  assert.ok(refused instanceof EmulatorError && refused.status === 400 && refused.details.some((d) => d.startsWith("operation:")), String(refused));
});

test("the journal lists what a client called that the emulator does not have", async () => {
  const origin = new URL(base).origin;
  for (const url of [`${origin}/rest/services?f=json`, `${base}/community/users?q=roads&f=json&token=${demo.memberToken}`]) {
    const r = await fetch(url);
    assert.equal(r.status, 404);
    await r.body?.cancel();
  }
  await getPortalSettings(demo.portalId, { portal: base, authentication: admin });
  const missing = await emu.unmatched();
  assert.deepEqual(
    missing.map((c) => [c.operation, c.method, c.path, c.answer.status, c.caller ?? null]),
    [
      ["(unmatched)", "GET", "/rest/services", 404, null],
      ["(unmatched)", "GET", "/sharing/rest/community/users", 404, demo.member],
    ],
  );
  assert.deepEqual(missing[1]?.params, { f: "json", q: "(not kept)", token: demo.member });
  assert.deepEqual(
    (await emu.requests({ unmatched: false })).map((c) => c.operation),
    ["getSettings"],
  );
});
