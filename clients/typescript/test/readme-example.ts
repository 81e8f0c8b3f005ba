// The example of clients/README.md. With `make run` in another terminal, from clients/typescript:
//   npm ci --no-audit --no-fund && npm run build && node build/test/readme-example.js
import { createPortalClient, PortalError } from "../src/index.js";

const base = process.env["PORTAL_URL"] ?? "http://127.0.0.1:8080/sharing/rest";
const admin = createPortalClient(base, { token: "demo-admin-token" });
const jsmith = createPortalClient(base, { token: "demo-user-token" });
const self = { params: { path: { portalId: "self" } } };

await admin.post("/portals/{portalId}/settings/update", {
  ...self,
  body: { informationalBanner: { text: "Read-only until 18:00 UTC", bgColor: "grey", fontColor: "#FFFFFF", enabled: true } },
});
const settings = await admin.get("/portals/{portalId}/settings", self);
console.log("banner:", JSON.stringify(settings.informationalBanner));

// One result per id; a per-item failure is a result, not an exception (moving twice: "Item already exists in
// target folder").
const { results = [] } = await jsmith.post("/content/users/{userName}/moveItems", {
  params: { path: { userName: "jsmith" } },
  body: { items: ["93b54c8930ae46d9a00a7820cb3ebbd1", "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"], folder: "1a9ad803da604628b08c968ce602a231" },
});
for (const r of results) console.log("moveItems:", r.itemId, r.success ? "moved" : r.error?.message);

// Four levels, one more than allowed: rejected with ORG_1132.
const tree = [{ title: "A", categories: [{ title: "B", categories: [{ title: "C", categories: [{ title: "D" }] }] }] }];
try {
  await admin.post("/portals/{portalId}/assignMemberCategorySchema", { ...self, body: { memberCategorySchema: { memberCategorySchema: tree } } });
} catch (e) {
  if (!(e instanceof PortalError) || e.messageCode !== "ORG_1132") throw e; // e.isAuthError: 498 or 499, sign in again
  console.log("assignMemberCategorySchema:", e.messageCode, e.details.join("; "));
}
