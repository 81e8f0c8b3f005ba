// orval with its fetch client and recipe.ts as the mutator, against portald.
import { assignMemberCategorySchema, getSettings, moveItems, updateSettings } from "./gen/portal.js";
import { PortalError, portal } from "./recipe.js";
import { base, demo, run } from "../common/scenario.js";
portal.baseUrl = base();
// orval leaves security schemes out: the token goes in a header of each call.
const as = (token) => ({ headers: { Authorization: `Bearer ${token}` } });
await run("orval", {
    updateBanner: (informationalBanner) => updateSettings("self", { informationalBanner }, as(demo.adminToken)),
    readBanner: async () => {
        const { data } = await getSettings("self", undefined, as(demo.adminToken));
        return "informationalBanner" in data ? data.informationalBanner : data;
    },
    moveItems: async (items, folder) => {
        const { data } = await moveItems(demo.member, { items, folder }, as(demo.memberToken));
        return "results" in data ? data.results : undefined;
    },
    assignSchema: (memberCategorySchema) => assignMemberCategorySchema("self", { memberCategorySchema }, as(demo.adminToken)),
    messageCode: (e) => (e instanceof PortalError ? e.error.messageCode : undefined),
});
