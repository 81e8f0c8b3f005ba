// A user's node:test suite: ArcGIS REST JS, unmodified, against portald from the npm package. One portald
// for the file; every test starts from the snapshot taken when it started.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { ArcGISIdentityManager, ArcGISRequestError } from "@esri/arcgis-rest-request";
import { getItem, moveItem } from "@esri/arcgis-rest-portal";
import { binaryPath, demo, startPortal } from "portald";

let portal;
before(async () => {
  portal = await startPortal();
  await portal.snapshot("start");
});
after(() => portal?.stop());
beforeEach(() => portal.fresh("start"));

const signIn = (username, password) => ArcGISIdentityManager.signIn({ username, password, portal: portal.restUrl });

test("the binary comes from this platform's package", () => {
  assert.equal(process.env["PORTALD_BIN"], undefined);
  assert.match(binaryPath(), /node_modules[\\/]@orgportal[\\/]portald-(linux|darwin|win32)-(x64|arm64)[\\/]bin[\\/]portald/);
  assert.equal(portal.tokens["admin"], demo.adminToken);
});

test("jsmith signs in and moves Roads into Projects", async () => {
  const jsmith = await signIn(demo.member, demo.memberPassword);
  assert.equal(jsmith.username, demo.member);
  const moved = await moveItem({ itemId: demo.roads, folderId: demo.projects, authentication: jsmith });
  assert.equal(moved.success, true);
  assert.equal((await getItem(demo.roads, { authentication: jsmith })).ownerFolder, demo.projects);
  // What the client sent: a password sign-in, then one move of Roads.
  const [signin] = await portal.journal({ operation: "generateToken" });
  assert.equal(signin?.params["username"], demo.member);
  const [move] = await portal.journal({ operation: "moveItem" });
  assert.equal(move?.params["itemId"], demo.roads);
  assert.equal(move?.params["folder"], demo.projects);
  assert.equal(move?.answer.success, true);
});

test("the next test starts with Roads in the root again", async () => {
  const jsmith = await signIn(demo.member, demo.memberPassword);
  assert.equal((await getItem(demo.roads, { authentication: jsmith })).ownerFolder ?? null, null);
  assert.deepEqual(await portal.journal({ operation: "moveItem" }), []);
});

test("a fault fails the first move; the client raises the portal's error and nothing moves", async () => {
  const rule = await portal.faults.add({ operation: "moveItem", error: { code: 500, message: "Item already exists in target folder" } });
  const jsmith = await signIn(demo.member, demo.memberPassword);
  await assert.rejects(moveItem({ itemId: demo.roads, folderId: demo.archive, authentication: jsmith }), (e) => {
    assert.ok(e instanceof ArcGISRequestError);
    assert.match(e.message, /Item already exists in target folder/);
    return true;
  });
  assert.equal((await getItem(demo.roads, { authentication: jsmith })).ownerFolder ?? null, null);
  assert.equal((await moveItem({ itemId: demo.roads, folderId: demo.archive, authentication: jsmith })).success, true);
  const [first, second] = await portal.journal({ operation: "moveItem" });
  assert.equal(first?.fault, rule.id);
  assert.equal(second?.fault, undefined);
  assert.deepEqual((await portal.faults.list()).map((f) => [f.id, f.fired]), [[rule.id, 1]]);
});
