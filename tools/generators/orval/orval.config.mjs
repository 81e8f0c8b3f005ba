export default {
  portal: {
    input: "../../../openapi.yaml",
    output: { target: "gen/portal.ts", client: "fetch", override: { mutator: { path: "recipe.ts", name: "portalFetch" } } },
  },
};
