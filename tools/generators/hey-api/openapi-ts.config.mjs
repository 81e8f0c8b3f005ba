export default {
  input: "../../../openapi.yaml",
  output: { path: "gen", importFileExtension: ".js" },
  plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
};
