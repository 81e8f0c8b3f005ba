// The generated TypeScript client against the reference server: every operation of openapi.yaml, called
// through createPortalClient, with its answers and its error envelopes.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Middleware } from "openapi-fetch";
import { createPortalClient, operations, PortalError, unwrap, type components, type PortalClient } from "../src/index.js";
import { demo, startPortald, type Portald } from "./portald.js";

let server: Portald;
let admin: PortalClient;
let member: PortalClient;
let anonymous: PortalClient;
let badToken: PortalClient;

// Every "METHOD path" sent through the clients, to check that each operation of the spec was exercised.
const called = new Set<string>();
const recorder: Middleware = {
  onRequest({ request, schemaPath }) {
    called.add(`${request.method.toLowerCase()} ${schemaPath}`);
  },
};

function client(token?: string): PortalClient {
  const c = createPortalClient(server.base, token === undefined ? {} : { token });
  c.raw.use(recorder);
  return c;
}

before(async () => {
  server = await startPortald();
  admin = client(demo.adminToken);
  member = client(demo.memberToken);
  anonymous = client();
  badToken = client("not-a-token");
});
after(async () => {
  await server?.stop();
});
beforeEach(async () => {
  await server.reset();
});

/** Runs `fn`, which must reject with a PortalError, and returns that error. */
async function portalError(fn: () => Promise<unknown>): Promise<PortalError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof PortalError, `expected a PortalError, got ${String(e)}`);
    return e;
  }
  assert.fail("expected a PortalError, the call succeeded");
}

const self = { path: { portalId: "self" } };
const ofMember = { path: { userName: demo.member } };

const noticesAndBanner = {
  anonymousAccessNotice: {
    title: "Anonymous Access Notice Title",
    text: "Anonymous Access Notice Text",
    buttons: "acceptAndDecline",
    enabled: true,
  },
  authenticatedAccessNotice: {
    title: "Authenticated Access Notice Title",
    text: "Authenticated Access Notice Text",
    buttons: "okOnly",
    enabled: true,
  },
  informationalBanner: { text: "Read-only until 18:00 UTC", bgColor: "grey", fontColor: "#FFFFFF", enabled: true },
} as const;

const threeLevels = {
  memberCategorySchema: [
    {
      title: "Office Location",
      categories: [{ title: "USA", categories: [{ title: "Maine" }, { title: "California" }] }, { title: "Canada" }],
    },
    { title: "Department", categories: [{ title: "Planning" }, { title: "Public Works" }] },
  ],
};

describe("organization settings", () => {
  test("updateSettings stores notices and banner; getSettings returns them", async () => {
    assert.deepEqual(await admin.post("/portals/{portalId}/settings/update", { params: self, body: noticesAndBanner }), {
      success: true,
    });
    const s = await member.get("/portals/{portalId}/settings", { params: { path: { portalId: demo.portalId } } });
    assert.deepEqual(s.anonymousAccessNotice, noticesAndBanner.anonymousAccessNotice);
    assert.deepEqual(s.authenticatedAccessNotice, noticesAndBanner.authenticatedAccessNotice);
    assert.deepEqual(s.informationalBanner, noticesAndBanner.informationalBanner);
  });

  test("portalConfigProperties: nested arrays and objects travel as one JSON field and merge key by key", async () => {
    const props = {
      extentService: "https://tiles.example.org/server/rest/services/WGS84_Extent/MapServer",
      footerLinks: [
        { title: "Terms of use", url: "https://www.example.org/terms" },
        { title: "Contact us", email: "gis@example.org", type: "contactUs" as const },
      ],
      httpsDomains: ["example.org", "maps.example.org"],
      tokenExpiration: 120,
      searchHostedEnabled: false,
    };
    await admin.post("/portals/{portalId}/settings/update", { params: self, body: { portalConfigProperties: props } });
    // A key sent as null is removed; the others stay.
    await admin.post("/portals/{portalId}/settings/update", {
      params: self,
      body: { portalConfigProperties: { tokenExpiration: null, longTokenExpiration: 20160 } },
    });
    const s = await admin.get("/portals/{portalId}/settings", { params: self });
    const { tokenExpiration: _, ...kept } = props;
    assert.deepEqual(s.portalConfigProperties, { ...kept, longTokenExpiration: 20160 });
  });

  test("clearEmptyFields=true clears a setting sent as {}", async () => {
    await admin.post("/portals/{portalId}/settings/update", { params: self, body: noticesAndBanner });
    await admin.post("/portals/{portalId}/settings/update", {
      params: self,
      body: { informationalBanner: {}, clearEmptyFields: true },
    });
    const s = await admin.get("/portals/{portalId}/settings", { params: self });
    assert.equal(s.informationalBanner ?? null, null);
    assert.deepEqual(s.anonymousAccessNotice, noticesAndBanner.anonymousAccessNotice);
  });

  test("getSettings: an anonymous caller reads the organization's settings without portalConfigProperties", async () => {
    await admin.post("/portals/{portalId}/settings/update", {
      params: self,
      body: { ...noticesAndBanner, portalConfigProperties: { tokenExpiration: 120 } },
    });
    const s = await anonymous.get("/portals/{portalId}/settings", { params: { path: { portalId: demo.portalId } } });
    assert.deepEqual(s.informationalBanner, noticesAndBanner.informationalBanner);
    assert.equal("portalConfigProperties" in s, false);
  });

  test("getSettings: 'self' needs a signed-in caller: anonymous is 499", async () => {
    const e = await portalError(() => anonymous.get("/portals/{portalId}/settings", { params: self }));
    assert.deepEqual([e.code, e.messageCode, e.message], [499, "GWM_0003", "Token Required."]);
  });

  test("f=pjson answers the same JSON, indented", async () => {
    const r = await admin.raw.POST("/portals/{portalId}/settings/update", {
      params: self,
      body: { informationalBanner: noticesAndBanner.informationalBanner, f: "pjson" },
      parseAs: "text",
    });
    assert.equal(r.data, '{\n  "success": true\n}\n');
  });

  test("errors: 499 without a token, 498 with a bad one, 403 without the privilege, 400 with details", async () => {
    const body: components["schemas"]["UpdateSettingsForm"] = { informationalBanner: noticesAndBanner.informationalBanner };
    const update = (c: PortalClient, b = body) =>
      c.post("/portals/{portalId}/settings/update", { params: { path: { portalId: demo.portalId } }, body: b });

    const e499 = await portalError(() => update(anonymous));
    assert.deepEqual(
      { code: e499.code, messageCode: e499.messageCode, message: e499.message, details: e499.details, status: e499.status },
      { code: 499, messageCode: "GWM_0003", message: "Token Required.", details: [], status: 200 },
    );
    assert.equal(e499.isAuthError, true);

    const e498 = await portalError(() => update(badToken));
    assert.deepEqual(
      { code: e498.code, messageCode: e498.messageCode, message: e498.message, details: e498.details },
      { code: 498, messageCode: undefined, message: "Invalid token.", details: [] },
    );
    assert.equal(e498.isAuthError, true);

    const e403 = await portalError(() => update(member));
    assert.deepEqual(
      { code: e403.code, messageCode: e403.messageCode, message: e403.message },
      {
        code: 403,
        messageCode: "GWM_0003",
        message: "You do not have permissions to access this resource or perform this operation.",
      },
    );
    assert.equal(e403.isAuthError, false);

    const e400 = await portalError(() =>
      update(admin, { informationalBanner: { text: "Maintenance tonight", bgColor: "#12345", fontColor: "white", enabled: true } }),
    );
    assert.equal(e400.code, 400);
    assert.equal(e400.message, "Unable to update organization settings.");
    assert.deepEqual(e400.details, [
      'informationalBanner.bgColor: "#12345" is not a CSS color name or a #rgb, #rgba, #rrggbb or #rrggbbaa value',
    ]);
  });

  test("getSettings: an unknown portal is a 400", async () => {
    const e = await portalError(() => admin.get("/portals/{portalId}/settings", { params: { path: { portalId: "FFFFFFFFFFFFFFFF" } } }));
    assert.equal(e.code, 400);
    assert.equal(e.message, "Portal does not exist or is inaccessible.");
  });
});

describe("member categories", () => {
  test("assignMemberCategorySchema then getMemberCategorySchema returns the tree", async () => {
    assert.deepEqual(
      await admin.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: threeLevels } }),
      { success: true },
    );
    const got = await member.get("/portals/{portalId}/memberCategorySchema", { params: self });
    assert.deepEqual(got, threeLevels);
  });

  test("assignMemberCategorySchema: 4 levels is ORG_1132", async () => {
    const fourLevels = {
      memberCategorySchema: [
        { title: "Office Location", categories: [{ title: "USA", categories: [{ title: "Maine", categories: [{ title: "Portland" }] }] }] },
      ],
    };
    const e = await portalError(() =>
      admin.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: fourLevels } }),
    );
    assert.deepEqual(
      { code: e.code, messageCode: e.messageCode, message: e.message, details: e.details },
      {
        code: 400,
        messageCode: "ORG_1132",
        message: "Unable to assign member category schema.",
        details: ["Schema exceeds max tree size: 4 levels, the maximum is 3"],
      },
    );
    // Nothing was stored.
    assert.deepEqual(await admin.get("/portals/{portalId}/memberCategorySchema", { params: self }), { memberCategorySchema: [] });
  });

  test("assignMemberCategorySchema: a member without the privilege gets 403", async () => {
    const e = await portalError(() =>
      member.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: threeLevels } }),
    );
    assert.equal(e.code, 403);
    assert.equal(e.messageCode, "GWM_0003");
  });

  test("getMemberCategorySchema without a token is 499", async () => {
    const e = await portalError(() => anonymous.get("/portals/{portalId}/memberCategorySchema", { params: { path: { portalId: demo.portalId } } }));
    assert.equal(e.code, 499);
    assert.equal(e.message, "Token Required.");
  });

  test("updateMember, getMember and listMembers filtered by category", async () => {
    await admin.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: threeLevels } });
    const categories = ["/Office Location/USA/Maine", "/Department/Planning"];
    assert.deepEqual(await admin.post("/community/users/{userName}/update", { params: ofMember, body: { categories } }), {
      success: true,
      username: demo.member,
    });
    const m = await member.get("/community/users/{userName}", { params: ofMember });
    assert.deepEqual(
      { username: m.username, fullName: m.fullName, orgId: m.orgId, role: m.role, categories: m.categories },
      { username: "jsmith", fullName: "Jane Smith", orgId: demo.portalId, role: "org_user", categories },
    );
    assert.match(m.id ?? "", /^[0-9a-f]{32}$/);
    assert.ok(m.privileges?.includes("portal:user:createItem"));

    const byUSA = await admin.get("/portals/{portalId}/users", {
      params: { path: self.path, query: { categories: ["/Office Location/USA"] } },
    });
    assert.deepEqual(byUSA.users?.map((u) => u.username), ["jsmith"]);
    assert.equal(byUSA.total, 1);
    // Two paths travel as one comma-separated query parameter; either one matching is enough.
    const byEither = await admin.get("/portals/{portalId}/users", {
      params: { path: self.path, query: { categories: ["/Office Location/Canada", "/Department"] } },
    });
    assert.deepEqual(byEither.users?.map((u) => u.username), ["jsmith"]);
    const byCanada = await admin.get("/portals/{portalId}/users", {
      params: { path: self.path, query: { categories: ["/Office Location/Canada"] } },
    });
    assert.deepEqual(byCanada, { total: 0, start: 1, num: 10, nextStart: -1, users: [] });
  });

  test("updateMember: a category outside the schema is a 400 naming it", async () => {
    await admin.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: threeLevels } });
    const e = await portalError(() =>
      admin.post("/community/users/{userName}/update", { params: ofMember, body: { categories: ["/Office Location/Mars"] } }),
    );
    assert.equal(e.code, 400);
    assert.deepEqual(e.details, ["categories[0]: /Office Location/Mars is not in the member category schema"]);
  });

  test("getMember: an unknown user is a 400", async () => {
    const e = await portalError(() => admin.get("/community/users/{userName}", { params: { path: { userName: "nobody" } } }));
    assert.equal(e.code, 400);
    assert.equal(e.message, "User does not exist or is inaccessible.");
  });

  test("deleteMemberCategorySchema empties the schema and the members' categories", async () => {
    await admin.post("/portals/{portalId}/assignMemberCategorySchema", { params: self, body: { memberCategorySchema: threeLevels } });
    await admin.post("/community/users/{userName}/update", { params: ofMember, body: { categories: ["/Department/Planning"] } });
    assert.deepEqual(await admin.post("/portals/{portalId}/deleteMemberCategorySchema", { params: self }), { success: true });
    assert.deepEqual(await admin.get("/portals/{portalId}/memberCategorySchema", { params: self }), { memberCategorySchema: [] });
    assert.deepEqual((await admin.get("/community/users/{userName}", { params: ofMember })).categories, []);
    const e = await portalError(() => member.post("/portals/{portalId}/deleteMemberCategorySchema", { params: self, body: { f: "json" } }));
    assert.equal(e.code, 403);
  });
});

describe("content", () => {
  test("getUserContent lists the root folder", async () => {
    const c = await member.get("/content/users/{userName}", { params: ofMember });
    assert.equal(c.username, "jsmith");
    assert.equal(c.currentFolder, null);
    assert.deepEqual(c.items?.map((i) => [i.id, i.title, i.ownerFolder]), [
      [demo.roads, "Roads", null],
      [demo.hydrants, "Hydrants", null],
    ]);
    assert.deepEqual(c.folders?.map((f) => [f.id, f.title]), [
      [demo.projects, "Projects"],
      [demo.archive, "Archive"],
    ]);
    assert.deepEqual([c.total, c.start, c.num, c.nextStart], [2, 1, 10, -1]);
    // Paging: one entry a page.
    const page = await member.get("/content/users/{userName}", { params: { ...ofMember, query: { start: 1, num: 1 } } });
    assert.deepEqual([page.items?.map((i) => i.id), page.nextStart], [[demo.roads], 2]);
  });

  test("moveItems: one moved, one already in the destination; the folder shows both", async () => {
    const r = await member.post("/content/users/{userName}/moveItems", {
      params: ofMember,
      body: { items: [demo.roads, demo.parcels], folder: demo.projects },
    });
    assert.deepEqual(r, {
      results: [
        { itemId: demo.roads, success: true },
        { itemId: demo.parcels, success: false, error: { code: 500, message: "Item already exists in target folder" } },
      ],
    });
    const f = await member.get("/content/users/{userName}/{folderId}", { params: { path: { userName: demo.member, folderId: demo.projects } } });
    assert.equal(f.currentFolder?.id, demo.projects);
    assert.deepEqual(f.items?.map((i) => i.id).sort(), [demo.parcels, demo.roads].sort());
    const roads = await member.get("/content/items/{itemId}", { params: { path: { itemId: demo.roads } } });
    assert.equal(roads.ownerFolder, demo.projects);
  });

  test("moveItems: an administrator moves a member's item back to the root; an unknown item fails alone", async () => {
    const r = await admin.post("/content/users/{userName}/moveItems", {
      params: ofMember,
      body: { items: [demo.parcels, demo.unknownItem], folder: "/" },
    });
    assert.deepEqual(r.results, [
      { itemId: demo.parcels, success: true },
      {
        itemId: demo.unknownItem,
        success: false,
        error: { code: 400, messageCode: "CONT_0001", message: "Item does not exist or is inaccessible." },
      },
    ]);
    assert.equal((await member.get("/content/items/{itemId}", { params: { path: { itemId: demo.parcels } } })).ownerFolder, null);
  });

  test("moveItems: an unknown destination folder fails the whole request", async () => {
    const e = await portalError(() =>
      member.post("/content/users/{userName}/moveItems", {
        params: ofMember,
        body: { items: [demo.roads], folder: "ffffffffffffffffffffffffffffffff" },
      }),
    );
    assert.equal(e.code, 400);
    assert.deepEqual(e.details, ["folder: ffffffffffffffffffffffffffffffff is not a folder of jsmith"]);
    assert.equal((await member.get("/content/items/{itemId}", { params: { path: { itemId: demo.roads } } })).ownerFolder, null);
  });

  test("getItem and getFolderContent: unknown ids are 400s", async () => {
    const item = await portalError(() => member.get("/content/items/{itemId}", { params: { path: { itemId: demo.unknownItem } } }));
    assert.deepEqual([item.code, item.messageCode, item.message], [400, "CONT_0001", "Item does not exist or is inaccessible."]);
    const folder = await portalError(() =>
      member.get("/content/users/{userName}/{folderId}", { params: { path: { userName: demo.member, folderId: "ffffffffffffffffffffffffffffffff" } } }),
    );
    assert.deepEqual([folder.code, folder.message], [400, "Folder does not exist or is inaccessible."]);
  });

  test("createFolder, addItem, addItemToFolder, deleteItems and deleteFolder", async () => {
    const created = await member.post("/content/users/{userName}/createFolder", { params: ofMember, body: { title: "Field Work" } });
    assert.equal(created.success, true);
    assert.equal(created.folder?.title, "Field Work");
    assert.equal(created.folder?.username, "jsmith");
    const folderId = created.folder?.id;
    assert.ok(folderId);

    const dup = await portalError(() => member.post("/content/users/{userName}/createFolder", { params: ofMember, body: { title: "projects" } }));
    assert.deepEqual(dup.details, ["title: a folder named projects already exists"]);

    const trails = await member.post("/content/users/{userName}/addItem", {
      params: ofMember,
      body: { title: "Trails", type: "Feature Service", tags: "transport,outdoor", description: "Hiking trails" },
    });
    assert.equal(trails.success, true);
    assert.equal(trails.folder, null);
    assert.ok(trails.id);
    const got = await member.get("/content/items/{itemId}", { params: { path: { itemId: trails.id } } });
    assert.deepEqual([got.title, got.type, got.tags, got.description, got.owner, got.ownerFolder], [
      "Trails",
      "Feature Service",
      ["transport", "outdoor"],
      "Hiking trails",
      "jsmith",
      null,
    ]);

    const zoning = await member.post("/content/users/{userName}/{folderId}/addItem", {
      params: { path: { userName: demo.member, folderId } },
      body: { title: "Zoning", type: "Web Map" },
    });
    assert.equal(zoning.folder, folderId);

    const missingType = await portalError(() =>
      member.post("/content/users/{userName}/addItem", { params: ofMember, body: { title: "Trails" } as { title: string; type: string } }),
    );
    assert.deepEqual(missingType.details, ["type: property is missing"]);

    const deleted = await member.post("/content/users/{userName}/deleteItems", {
      params: ofMember,
      body: { items: [trails.id, demo.unknownItem] },
    });
    assert.deepEqual(deleted.results, [
      { itemId: trails.id, success: true },
      {
        itemId: demo.unknownItem,
        success: false,
        error: { code: 400, messageCode: "CONT_0001", message: "Item does not exist or is inaccessible." },
      },
    ]);

    const removed = await member.post("/content/users/{userName}/{folderId}/delete", { params: { path: { userName: demo.member, folderId } } });
    assert.deepEqual([removed.success, removed.folder?.id, removed.folder?.title], [true, folderId, "Field Work"]);
    // The folder's items went with it.
    await portalError(() => member.get("/content/items/{itemId}", { params: { path: { itemId: zoning.id ?? "" } } }));
  });

  test("another member's content is out of reach: 403", async () => {
    const other = client("demo-other-user-token");
    const e = await portalError(() =>
      other.post("/content/users/{userName}/moveItems", { params: ofMember, body: { items: [demo.roads], folder: demo.projects } }),
    );
    assert.equal(e.code, 403);
  });

  test("a body over 1 MiB is a real HTTP 413 that still carries the envelope", async () => {
    const e = await portalError(() =>
      member.post("/content/users/{userName}/addItem", {
        params: ofMember,
        body: { title: "Big", type: "CSV", description: "x".repeat(1 << 20) },
      }),
    );
    assert.equal(e.status, 413);
    assert.equal(e.code, 413);
  });
});

describe("authentication", () => {
  test("generateToken issues a token the client can use; a wrong password is a 400", async () => {
    const before = Date.now();
    const t = await anonymous.post("/generateToken", {
      body: { username: demo.member, password: demo.memberPassword, expiration: 60, client: "referer", referer: "https://apps.example.org" },
    });
    assert.ok(t.token);
    assert.equal(t.ssl, false);
    // Expiry is an epoch in milliseconds, about an hour ahead.
    assert.ok(t.expires !== undefined && t.expires > before + 59 * 60_000 && t.expires < Date.now() + 61 * 60_000);
    // Bound to its referer (client=referer), the token works with that Referer only, as on the portal.
    const fromApp = createPortalClient(server.base, { token: t.token, headers: { Referer: "https://apps.example.org/map.html" } });
    const c = await fromApp.get("/content/users/{userName}", { params: ofMember });
    assert.equal(c.username, "jsmith");
    const elsewhere = await portalError(() => client(t.token).get("/content/users/{userName}", { params: ofMember }));
    assert.equal(elsewhere.code, 498);

    const e = await portalError(() => anonymous.post("/generateToken", { body: { username: demo.member, password: "wrong" } }));
    assert.deepEqual([e.code, e.message, e.details], [400, "Unable to generate token.", ["Invalid username or password."]]);
  });

  test("the raw openapi-fetch client keeps the envelope in data; unwrap throws it", async () => {
    const r = await anonymous.raw.GET("/portals/{portalId}/memberCategorySchema", { params: self });
    assert.equal(r.response.status, 200);
    assert.deepEqual(r.data, { error: { code: 499, messageCode: "GWM_0003", message: "Token Required.", details: [] } });
    assert.throws(() => unwrap(r), (e: unknown) => e instanceof PortalError && e.code === 499);
  });
});

describe("discovery, the per-item move and OAuth tokens", () => {
  test("getRoot, getInfo, getPortal, getSelf and listRoles read what a client learns first", async () => {
    const root = await anonymous.get("/", {});
    assert.equal(root.currentVersion, "2025.1");
    const info = await anonymous.get("/info", {});
    assert.equal(info.authInfo?.tokenServicesUrl, `${server.base}/generateToken`);
    const portal = await member.get("/portals/{portalId}", { params: self });
    assert.deepEqual([portal.id, portal.portalName, portal.isPortal, portal.user?.username], [demo.portalId, "ArcGIS Enterprise", true, "jsmith"]);
    const me = await member.get("/community/self", {});
    assert.equal(me.id, portal.user?.id);
    const roles = await member.get("/portals/{portalId}/roles", { params: { path: self.path, query: { num: 100 } } });
    assert.ok(roles.roles?.some((r) => r.id === "viewer"));
    const e = await portalError(() => anonymous.get("/community/self", {}));
    assert.equal(e.code, 499);
  });

  test("searchItems, searchGroups, getGroup and getUserTags answer what the caller may see", async () => {
    const mine = await member.get("/search", { params: { query: { q: `owner:${demo.member}`, sortField: "title", num: 100 } } });
    assert.deepEqual(mine.results?.map((i) => [i.title, i.access]), [["Hydrants", "org"], ["Parcels", "private"], ["Roads", "public"]]);
    const open = await anonymous.get("/search", { params: { query: { q: `owner:${demo.member}` } } });
    assert.deepEqual(open.results?.map((i) => i.title), ["Roads"]);
    const groups = await member.get("/community/groups", { params: { query: { q: `accountid:${demo.portalId}`, sortField: "title" } } });
    assert.deepEqual(groups.results?.map((g) => [g.title, g.userMembership.memberType]), [["Open Data", "member"], ["Planning", "owner"]]);
    const planning = groups.results?.find((g) => g.title === "Planning");
    const read = await member.get("/community/groups/{groupId}", { params: { path: { groupId: planning?.id ?? "" } } });
    assert.deepEqual([read.title, read.access, read.userMembership?.memberType], ["Planning", "org", "owner"]);
    const hidden = await portalError(() => anonymous.get("/community/groups/{groupId}", { params: { path: { groupId: planning?.id ?? "" } } }));
    assert.equal(hidden.code, 400);
    // A user's tags: here, those of the group Planning, which an anonymous caller does not see.
    const tags = await member.get("/community/users/{userName}/tags", { params: { path: { userName: demo.member } } });
    assert.deepEqual(tags.tags, [{ tag: "planning", count: 1 }]);
    assert.deepEqual((await anonymous.get("/community/users/{userName}/tags", { params: { path: { userName: demo.member } } })).tags, []);
  });

  test("moveItem and moveItemFromFolder: one item, its failure the call's", async () => {
    const moved = await member.post("/content/users/{userName}/items/{itemId}/move", {
      params: { path: { userName: demo.member, itemId: demo.roads } },
      body: { folder: demo.projects },
    });
    assert.deepEqual(moved, { success: true, itemId: demo.roads, owner: "jsmith", folder: demo.projects });
    const back = await member.post("/content/users/{userName}/{folderId}/items/{itemId}/move", {
      params: { path: { userName: demo.member, folderId: demo.projects, itemId: demo.roads } },
      body: { folder: "/" },
    });
    assert.equal(back.folder, "/");
    const e = await portalError(() =>
      member.post("/content/users/{userName}/items/{itemId}/move", {
        params: { path: { userName: demo.member, itemId: demo.unknownItem } },
        body: { folder: "/" },
      }),
    );
    assert.equal(e.messageCode, "CONT_0001");
  });

  test("oauthToken (client credentials) and oauthRevokeToken", async () => {
    const t = await anonymous.post("/oauth2/token", {
      body: { grant_type: "client_credentials", client_id: demo.clientId, client_secret: demo.clientSecret },
    });
    assert.ok(t.access_token);
    assert.equal(t.expires_in, 7200);
    const app = client(t.access_token);
    assert.equal((await app.get("/portals/{portalId}", { params: self })).appInfo?.appId, demo.clientId);
    assert.deepEqual(await anonymous.post("/oauth2/revokeToken", { body: { client_id: demo.clientId, auth_token: t.access_token ?? "" } }), {
      success: true,
    });
    const e = await portalError(() => app.get("/portals/{portalId}", { params: self }));
    assert.equal(e.code, 498);
    const bad = await portalError(() => anonymous.post("/oauth2/token", { body: { grant_type: "client_credentials", client_id: demo.clientId, client_secret: "wrong" } }));
    assert.equal(bad.message, "Invalid client_secret");
  });
});

// The sign-in's pages are opened by a browser, not called through the client (oauthSignIn is not even under
// the REST root): the official clients' tests drive them.
const pages = new Set(["oauthAuthorize", "oauthSignIn", "oauthApproval"]);

test("every operation of openapi.yaml but the sign-in's pages was called", () => {
  const all = Object.entries(operations).map(([id, o]) => [id, `${o.method} ${o.path}`] as const);
  assert.equal(all.length, 34);
  const missed = all.filter(([id, key]) => !pages.has(id) && !called.has(key)).map(([id]) => id);
  assert.deepEqual(missed, []);
});
