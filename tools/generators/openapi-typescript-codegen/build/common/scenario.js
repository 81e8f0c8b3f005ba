"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.base = exports.fourLevels = exports.banner = exports.demo = void 0;
exports.run = run;
// The three requests every generated TypeScript client must get right against portald, whose REST root is in
// $PORTAL_BASE: a JSON-in-form object read back equal, a comma list of ids with one result per id, and the
// HTTP-200 error envelope surfacing as a rejected promise carrying its messageCode.
const node_assert_1 = require("node:assert");
exports.demo = {
    adminToken: "demo-admin-token",
    memberToken: "demo-user-token",
    member: "jsmith",
    roads: "93b54c8930ae46d9a00a7820cb3ebbd1",
    parcels: "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8",
    projects: "1a9ad803da604628b08c968ce602a231",
};
exports.banner = { text: "Read-only until 18:00 UTC", bgColor: "grey", fontColor: "#FFFFFF", enabled: true };
// One level more than the three assignMemberCategorySchema allows.
exports.fourLevels = {
    memberCategorySchema: [{ title: "A", categories: [{ title: "B", categories: [{ title: "C", categories: [{ title: "D" }] }] }] }],
};
const base = () => {
    const b = process.env["PORTAL_BASE"];
    if (!b)
        throw new Error("PORTAL_BASE (the REST root of a running portald) is not set");
    return b;
};
exports.base = base;
async function run(name, g) {
    await g.updateBanner(exports.banner);
    node_assert_1.strict.deepEqual(await g.readBanner(), exports.banner, `${name}: settings/update then getSettings`);
    const results = await g.moveItems([exports.demo.roads, exports.demo.parcels], exports.demo.projects);
    node_assert_1.strict.deepEqual(results?.map((r) => r.itemId), [exports.demo.roads, exports.demo.parcels], `${name}: moveItems answers one result per id, in request order`);
    node_assert_1.strict.equal(results?.[0]?.success, true, `${name}: Roads moved`);
    let rejected;
    const settled = await g.assignSchema(exports.fourLevels).then((v) => ({ resolved: v }), (e) => {
        rejected = e;
        return undefined;
    });
    node_assert_1.strict.equal(settled, undefined, `${name}: a 4-level schema resolved with ${JSON.stringify(settled)} instead of failing`);
    node_assert_1.strict.equal(g.messageCode(rejected), "ORG_1132", `${name}: the error carries ORG_1132: ${String(rejected)}`);
    console.log(`ok ${name}: settings/update read back, moveItems one result per id, ORG_1132 raised`);
}
