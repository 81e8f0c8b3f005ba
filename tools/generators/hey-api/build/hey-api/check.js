// @hey-api/openapi-ts with its fetch client and recipe.ts, against portald.
import { client } from "./gen/client.gen.js";
import { assignMemberCategorySchema, getSettings, moveItems, updateSettings } from "./gen/sdk.gen.js";
import { PortalError } from "./recipe.js";
import { base, demo, run } from "../common/scenario.js";
client.setConfig({ baseUrl: base() });
// throwOnError: a PortalError thrown by the recipe's interceptor rejects the call.
const admin = { auth: demo.adminToken, path: { portalId: "self" }, throwOnError: true };
await run("@hey-api/openapi-ts", {
    updateBanner: (informationalBanner) => updateSettings({ ...admin, body: { informationalBanner } }),
    readBanner: async () => (await getSettings(admin)).data.informationalBanner,
    moveItems: async (items, folder) => (await moveItems({ auth: demo.memberToken, throwOnError: true, path: { userName: demo.member }, body: { items, folder } })).data.results,
    assignSchema: (memberCategorySchema) => assignMemberCategorySchema({ ...admin, body: { memberCategorySchema } }),
    messageCode: (e) => (e instanceof PortalError ? e.error.messageCode : undefined),
});
