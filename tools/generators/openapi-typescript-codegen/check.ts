// openapi-typescript-codegen with its fetch client, core/request.ts replaced by recipe.ts, against portald.
import { ApiError, ContentService, MemberCategoriesService, OpenAPI, OrganizationSettingsService } from "./gen";
import { base, demo, run } from "../common/scenario";

OpenAPI.BASE = base();
const as = (token: string) => {
  OpenAPI.TOKEN = token;
};

void run("openapi-typescript-codegen", {
  updateBanner: (informationalBanner) => (as(demo.adminToken), OrganizationSettingsService.updateSettings("self", { informationalBanner })),
  readBanner: async () => (as(demo.adminToken), (await OrganizationSettingsService.getSettings("self")).informationalBanner),
  moveItems: async (items, folder) => (as(demo.memberToken), (await ContentService.moveItems(demo.member, { items, folder })).results),
  assignSchema: (memberCategorySchema) =>
    (as(demo.adminToken), MemberCategoriesService.assignMemberCategorySchema("self", { memberCategorySchema })),
  messageCode: (e) => (e instanceof ApiError ? e.body?.error?.messageCode : undefined),
}).catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
