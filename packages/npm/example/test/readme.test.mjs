import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { ArcGISIdentityManager } from "@esri/arcgis-rest-request";
import { moveItem } from "@esri/arcgis-rest-portal";
import { demo, startPortal } from "portald";

let portal;
before(async () => {
  portal = await startPortal();          // { tls: true } for HTTPS, caFile to trust; { seed: "seed.yaml" }
  await portal.snapshot("start");
});
after(() => portal.stop());
beforeEach(() => portal.fresh("start")); // the store as it started, no fault, journal or clock offset left

// The code under test: moves an item with ArcGIS REST JS, once more when the portal is busy (HTTP 429).
async function archive(itemId, folderId, authentication) {
  try {
    return await moveItem({ itemId, folderId, authentication });
  } catch (e) {
    if (!e.code?.startsWith("HTTP 429")) throw e;
    return moveItem({ itemId, folderId, authentication });
  }
}

test("archive moves Roads once the portal is no longer busy", async () => {
  const fault = await portal.faults.add({ operation: "moveItem", status: 429, headers: { "Retry-After": "1" } });
  const authentication = await ArcGISIdentityManager.signIn({
    username: demo.member, password: demo.memberPassword, portal: portal.restUrl });
  assert.equal((await archive(demo.roads, demo.projects, authentication)).success, true);
  const calls = await portal.journal({ operation: "moveItem" });
  assert.deepEqual(calls.map((c) => c.fault), [fault.id, undefined]); // refused once, then moved
});
