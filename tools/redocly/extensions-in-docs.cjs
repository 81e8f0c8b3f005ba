// A Redocly decorator for build-docs: the reference page shows, in each
// operation's and property's description, what x-introduced-in,
// x-deployments and x-privileges say, so that readers see the version, the
// deployments and the privileges without reading the YAML.
const deploymentNames = { enterprise: "enterprise (self-hosted)", online: "online (hosted)" };

function facts(node, withPrivileges) {
  const out = [];
  if (node["x-introduced-in"]) out.push(`**Since:** ${node["x-introduced-in"]}`);
  if (Array.isArray(node["x-deployments"])) {
    out.push(`**Deployments:** ${node["x-deployments"].map((d) => deploymentNames[d] ?? d).join(", ")} only`);
  }
  if (withPrivileges && Array.isArray(node["x-privileges"])) {
    const p = node["x-privileges"];
    out.push(p.length ? `**Privileges:** ${p.map((x) => "`" + x + "`").join(", ")} (or \`org_admin\`)` : "**Privileges:** none (see who may call it below)");
  }
  return out.join(" · ");
}

function annotate(node, withPrivileges) {
  const line = facts(node, withPrivileges);
  if (!line) return;
  node.description = node.description ? `${line}\n\n${node.description}` : line;
}

module.exports = function extensionsInDocs() {
  return {
    id: "portal",
    decorators: {
      oas3: {
        "extensions-in-docs": () => ({
          Operation: { leave: (op) => annotate(op, true) },
          Schema: { leave: (schema) => annotate(schema, false) },
        }),
      },
    },
  };
};
