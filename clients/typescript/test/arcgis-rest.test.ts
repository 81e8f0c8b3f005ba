// The portal's official JavaScript client (@esri/arcgis-rest-request and @esri/arcgis-rest-portal) against the
// reference server, with its default parameter encoding: objects JSON-encoded, arrays of strings joined with
// commas, f=json added, errors found in the body and 498/499 raised as ArcGISAuthError.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  ArcGISAuthError,
  ArcGISIdentityManager,
  ArcGISRequestError,
  request,
  type IAuthenticationManager,
  type IUser,
} from "@esri/arcgis-rest-request";
import {
  createFolder,
  createItem,
  createItemInFolder,
  getPortalSettings,
  getUser,
  getUserContent,
  removeFolder,
  updateUser,
} from "@esri/arcgis-rest-portal";
import { demo, startPortald, type Portald } from "./portald.js";

let server: Portald;
let base: string;
let admin: IAuthenticationManager;
let member: IAuthenticationManager;

// The smallest authentication manager request() accepts: the portal and a fixed token.
const tokenAuth = (token: string): IAuthenticationManager => ({ portal: base, getToken: async () => token });

before(async () => {
  server = await startPortald();
  base = server.base;
  admin = tokenAuth(demo.adminToken);
  member = tokenAuth(demo.memberToken);
});
after(async () => {
  await server?.stop();
});
beforeEach(async () => {
  await server.reset();
});

/** Runs `fn`, which must reject with an error of class `cls`, and returns that error. */
async function rejection<E extends Error>(cls: new (...args: never[]) => E, fn: () => Promise<unknown>): Promise<E> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected ${cls.name}, the call succeeded`);
}

/** The library's IUser has no categories; the portal's member has them. */
type Member = IUser & { categories?: string[] };

/** The portal's error envelope body, as the library keeps it in `response`. */
function envelope(e: ArcGISRequestError): unknown {
  return (e.response as { error?: unknown } | undefined)?.error;
}

const banner = { text: "Read-only until 18:00 UTC", bgColor: "grey", fontColor: "#FFFFFF", enabled: true };
const notice = { title: "Notice", text: "Please accept.", buttons: "okOnly", enabled: true };
const threeLevels = {
  memberCategorySchema: [
    { title: "Office Location", categories: [{ title: "USA", categories: [{ title: "Maine" }] }, { title: "Canada" }] },
    { title: "Department", categories: [{ title: "Planning" }] },
  ],
};

describe("request() with default params encoding", () => {
  test("settings/update with object params; getPortalSettings reads them back", async () => {
    const answer = await request(`${base}/portals/self/settings/update`, {
      params: { informationalBanner: banner, anonymousAccessNotice: notice, clearEmptyFields: false },
      authentication: admin,
    });
    assert.deepEqual(answer, { success: true });
    const settings = await getPortalSettings(demo.portalId, { portal: base, authentication: member });
    assert.deepEqual(settings["informationalBanner"], banner);
    assert.deepEqual(settings["anonymousAccessNotice"], notice);
    // hideToken: a GET that carries the token in X-Esri-Authorization instead of the query.
    const hidden = await getPortalSettings("self", { portal: base, authentication: member, hideToken: true });
    assert.deepEqual(hidden["informationalBanner"], banner);
  });

  test("settings/update with the token in params", async () => {
    const answer = await request(`${base}/portals/${demo.portalId}/settings/update`, {
      params: { token: demo.adminToken, informationalBanner: banner },
    });
    assert.deepEqual(answer, { success: true });
    const settings = await getPortalSettings(demo.portalId, { portal: base });
    assert.deepEqual(settings["informationalBanner"], banner);
  });

  test("getPortalSettings() anonymously: the library's default id is 'self', which needs a token", async () => {
    const e = await rejection(ArcGISAuthError, () => getPortalSettings(undefined, { portal: base }));
    assert.equal((envelope(e) as { code: number }).code, 499);
  });

  test("assignMemberCategorySchema with an object param; the schema reads back", async () => {
    const answer = await request(`${base}/portals/self/assignMemberCategorySchema`, {
      params: { memberCategorySchema: threeLevels },
      authentication: admin,
    });
    assert.deepEqual(answer, { success: true });
    const schema = await request(`${base}/portals/self/memberCategorySchema`, { httpMethod: "GET", authentication: member });
    assert.deepEqual(schema, threeLevels);
  });

  test("assignMemberCategorySchema with 4 levels: ArcGISRequestError with code ORG_1132", async () => {
    const fourLevels = {
      memberCategorySchema: [
        { title: "Office Location", categories: [{ title: "USA", categories: [{ title: "Maine", categories: [{ title: "Portland" }] }] }] },
      ],
    };
    const e = await rejection(ArcGISRequestError, () =>
      request(`${base}/portals/self/assignMemberCategorySchema`, { params: { memberCategorySchema: fourLevels }, authentication: admin }),
    );
    assert.equal(e instanceof ArcGISAuthError, false);
    assert.equal(e.name, "ArcGISRequestError");
    assert.equal(e.code, "ORG_1132");
    assert.equal(e.message, "ORG_1132: Unable to assign member category schema.");
    assert.deepEqual(envelope(e), {
      code: 400,
      messageCode: "ORG_1132",
      message: "Unable to assign member category schema.",
      details: ["Schema exceeds max tree size: 4 levels, the maximum is 3"],
    });
  });

  test("moveItems with an items array: per-item results, the failure included", async () => {
    const answer = await request(`${base}/content/users/${demo.member}/moveItems`, {
      params: { items: [demo.roads, demo.parcels], folder: demo.projects },
      authentication: member,
    });
    assert.deepEqual(answer, {
      results: [
        { itemId: demo.roads, success: true },
        { itemId: demo.parcels, success: false, error: { code: 500, message: "Item already exists in target folder" } },
      ],
    });
    const folder = await getUserContent({ owner: demo.member, folderId: demo.projects, portal: base, authentication: member });
    assert.deepEqual(folder.items.map((i) => i.id).sort(), [demo.parcels, demo.roads].sort());
  });

  test("deleteItems with an items array", async () => {
    const answer = await request(`${base}/content/users/${demo.member}/deleteItems`, {
      params: { items: [demo.hydrants, demo.unknownItem] },
      authentication: member,
    });
    assert.deepEqual(answer, {
      results: [
        { itemId: demo.hydrants, success: true },
        {
          itemId: demo.unknownItem,
          success: false,
          error: { code: 400, messageCode: "CONT_0001", message: "Item does not exist or is inaccessible." },
        },
      ],
    });
  });

  test("listMembers with a categories array in the query", async () => {
    await request(`${base}/portals/self/assignMemberCategorySchema`, { params: { memberCategorySchema: threeLevels }, authentication: admin });
    // A pre-encoded JSON array goes through untouched: the library only joins real arrays.
    await request(`${base}/community/users/${demo.member}/update`, {
      params: { categories: JSON.stringify(["/Office Location/USA/Maine"]) },
      authentication: admin,
    });
    const list = await request(`${base}/portals/self/users`, {
      httpMethod: "GET",
      params: { categories: ["/Office Location/Canada", "/Office Location/USA"] },
      authentication: admin,
    });
    assert.deepEqual(
      (list as { users: { username: string }[] }).users.map((u) => u.username),
      [demo.member],
    );
  });

  test(
    "updateUser with a categories array (the library joins it with commas)",
    async () => {
      await request(`${base}/portals/self/assignMemberCategorySchema`, { params: { memberCategorySchema: threeLevels }, authentication: admin });
      const categories = ["/Office Location/USA/Maine", "/Department/Planning"];
      const user: Member = { username: demo.member, categories };
      const answer = await updateUser({ user, portal: base, authentication: admin });
      assert.equal(answer.success, true);
      const got: Member = await getUser({ username: demo.member, portal: base, authentication: member });
      assert.deepEqual(got.categories, categories);
    },
  );
});

describe("errors as the library raises them", () => {
  const update = (authentication?: IAuthenticationManager) =>
    request(`${base}/portals/self/settings/update`, {
      params: { informationalBanner: banner },
      ...(authentication ? { authentication } : {}),
    });

  test("an invalid token: ArcGISAuthError with code 498", async () => {
    const e = await rejection(ArcGISAuthError, () => update(tokenAuth("not-a-token")));
    assert.equal(e.code, 498);
    assert.deepEqual(envelope(e), { code: 498, message: "Invalid token.", details: [] });
  });

  test("no token: ArcGISAuthError, code GWM_0003 (the messageCode wins over 499)", async () => {
    const e = await rejection(ArcGISAuthError, () => update());
    assert.equal(e.code, "GWM_0003");
    assert.deepEqual(envelope(e), { code: 499, messageCode: "GWM_0003", message: "Token Required.", details: [] });
  });

  test("no privilege: ArcGISRequestError, not an auth error", async () => {
    const e = await rejection(ArcGISRequestError, () => update(member));
    assert.equal(e instanceof ArcGISAuthError, false);
    assert.equal(e.code, "GWM_0003");
    assert.equal((envelope(e) as { code: number }).code, 403);
  });
});

describe("@esri/arcgis-rest-portal helpers", () => {
  test("getUserContent: the root and a folder", async () => {
    const root = await getUserContent({ owner: demo.member, portal: base, authentication: member });
    assert.deepEqual(root.items.map((i) => i.id), [demo.roads, demo.hydrants]);
    assert.deepEqual(root.folders.map((f) => f.id), [demo.projects, demo.archive]);
    assert.equal(root.currentFolder, null);
    const projects = await getUserContent({ owner: demo.member, folderId: demo.projects, portal: base, authentication: member });
    assert.deepEqual(projects.items.map((i) => i.id), [demo.parcels]);
    assert.equal(projects.currentFolder?.id, demo.projects);
  });

  test("createFolder, createItem, createItemInFolder, removeFolder", async () => {
    const folder = await createFolder({ title: "Field Work", owner: demo.member, portal: base, authentication: member });
    assert.equal(folder.success, true);
    assert.equal(folder.folder.title, "Field Work");
    // createItem also sends owner= and joins tags with commas.
    const trails = await createItem({
      item: { title: "Trails", type: "Feature Service", tags: ["transport", "outdoor"], description: "Hiking trails" },
      owner: demo.member,
      portal: base,
      authentication: member,
    });
    assert.equal(trails.success, true);
    const zoning = await createItemInFolder({
      item: { title: "Zoning", type: "Web Map" },
      folderId: folder.folder.id,
      owner: demo.member,
      portal: base,
      authentication: member,
    });
    assert.equal(zoning.folder, folder.folder.id);
    const root = await getUserContent({ owner: demo.member, portal: base, authentication: member });
    const added = root.items.find((i) => i.id === trails.id);
    assert.deepEqual(added?.tags, ["transport", "outdoor"]);
    const removed = await removeFolder({ folderId: folder.folder.id, owner: demo.member, portal: base, authentication: member });
    assert.equal(removed.success, true);
  });

  test("getUser reads a member", async () => {
    const user: Member = await getUser({ username: demo.member, portal: base, authentication: member });
    assert.equal(user.username, demo.member);
    assert.equal(user.orgId, demo.portalId);
    assert.deepEqual(user.categories, []);
  });

  test("ArcGISIdentityManager signs in with generateToken and uses the token", async () => {
    const session = new ArcGISIdentityManager({ username: demo.member, password: demo.memberPassword, portal: base });
    const content = await getUserContent({ portal: base, authentication: session });
    assert.equal(content.username, demo.member);
    assert.ok(session.token);
    // The library asks for its default two weeks (expiration=20160 minutes), and reads expires as epoch ms.
    const twoWeeks = 20160 * 60_000;
    assert.ok(session.tokenExpires.getTime() > Date.now() + twoWeeks - 3_600_000);

    const wrong = new ArcGISIdentityManager({ username: demo.member, password: "wrong", portal: base });
    const e = await rejection(Error, () => getUserContent({ portal: base, authentication: wrong }));
    assert.equal(e.name, "ArcGISTokenRequestError");
    assert.equal((e as Error & { code?: unknown }).code, "TOKEN_REFRESH_FAILED");
  });
});
