// openapi-typescript's types and openapi-fetch, stock, with recipe.ts, against portald.
import { PortalError, createPortalClient } from "./recipe.js";
import { base, demo, run } from "../common/scenario.js";
const admin = createPortalClient(base(), demo.adminToken);
const member = createPortalClient(base(), demo.memberToken);
const self = { params: { path: { portalId: "self" } } };
await run("openapi-typescript + openapi-fetch", {
    updateBanner: (informationalBanner) => admin.POST("/portals/{portalId}/settings/update", { ...self, body: { informationalBanner } }),
    readBanner: async () => {
        const { data } = await admin.GET("/portals/{portalId}/settings", self);
        return data && "informationalBanner" in data ? data.informationalBanner : data;
    },
    moveItems: async (items, folder) => {
        const { data } = await member.POST("/content/users/{userName}/moveItems", {
            params: { path: { userName: demo.member } },
            body: { items, folder },
        });
        return data && "results" in data ? data.results : undefined;
    },
    assignSchema: (memberCategorySchema) => admin.POST("/portals/{portalId}/assignMemberCategorySchema", { ...self, body: { memberCategorySchema } }),
    messageCode: (e) => (e instanceof PortalError ? e.error.messageCode : undefined),
});
