"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
// openapi-typescript-codegen with its fetch client, core/request.ts replaced by recipe.ts, against portald.
const gen_1 = require("./gen");
const scenario_1 = require("../common/scenario");
gen_1.OpenAPI.BASE = (0, scenario_1.base)();
const as = (token) => {
    gen_1.OpenAPI.TOKEN = token;
};
void (0, scenario_1.run)("openapi-typescript-codegen", {
    updateBanner: (informationalBanner) => (as(scenario_1.demo.adminToken), gen_1.OrganizationSettingsService.updateSettings("self", { informationalBanner })),
    readBanner: async () => (as(scenario_1.demo.adminToken), (await gen_1.OrganizationSettingsService.getSettings("self")).informationalBanner),
    moveItems: async (items, folder) => (as(scenario_1.demo.memberToken), (await gen_1.ContentService.moveItems(scenario_1.demo.member, { items, folder })).results),
    assignSchema: (memberCategorySchema) => (as(scenario_1.demo.adminToken), gen_1.MemberCategoriesService.assignMemberCategorySchema("self", { memberCategorySchema })),
    messageCode: (e) => (e instanceof gen_1.ApiError ? e.body?.error?.messageCode : undefined),
}).catch((e) => {
    console.error(e);
    process.exitCode = 1;
});
