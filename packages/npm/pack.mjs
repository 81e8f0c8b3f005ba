#!/usr/bin/env node
// Packs portald for npm as esbuild does: one package per platform carrying the binary, with `os` and `cpu`
// so that npm installs only the machine's, and the main package `portald` naming them all as
// optionalDependencies at its own version.
//
//   node packages/npm/pack.mjs --version v1.2.3 --bins build/packages/bin --out build/packages/npm \
//     --platforms linux-amd64,darwin-arm64 [--main]
//
// --bins holds GOOS-GOARCH/portald[.exe] (mk/packages.mk builds them); --version is git describe's
// (BUILD_VERSION of mk/release.mk), written as semver. Prints the tarballs' paths.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");

// Go's GOOS-GOARCH to Node's process.platform-process.arch.
const PLATFORMS = {
  "linux-amd64": ["linux", "x64"],
  "linux-arm64": ["linux", "arm64"],
  "darwin-amd64": ["darwin", "x64"],
  "darwin-arm64": ["darwin", "arm64"],
  "windows-amd64": ["win32", "x64"],
};

// git describe --tags --always --dirty (mk/release.mk): a tag vMAJOR.MINOR.PATCH, maybe a pre-release
// (v1.3.0-rc.1), then -N-gHASH when N commits follow it, then -dirty when the tree has changes. The same
// grammar as packages/python/build_wheel.py's.
const DESCRIBE = /^v?(\d+)\.(\d+)\.(\d+)(?:-((?:alpha|beta|rc|a|b)\.?\d+))?(?:-(\d+)-g([0-9a-f]+))?$/;

/**
 * git describe's version as semver, meaning what build_wheel.py's pep440() means on PyPI (the cases of
 * packages/version_cases.json):
 * - a tag: that release, v1.2.3 -> 1.2.3, v1.3.0-rc.1 -> 1.3.0-rc.1;
 * - after a release tag (commits, or a changed tree): a pre-release of the next patch, before it,
 *   v1.2.3-4-gabc1234 -> 1.2.4-dev.4.gabc1234 (PEP 440 1.2.4.dev4+gabc1234), v1.2.3-dirty -> 1.2.4-dev.0.dirty;
 * - after a pre-release tag: after it and still before the release, v1.3.0-rc.1-4-gabc1234 ->
 *   1.3.0-rc.1.dev.4.gabc1234 (PEP 440 1.3.0rc1.post4+gabc1234);
 * - no tag: no release, 0.0.0 with the commit, abc1234 -> 0.0.0-gabc1234, abc1234-dirty ->
 *   0.0.0-gabc1234.dirty, dev -> 0.0.0-dev.
 * The commit and -dirty are pre-release identifiers, not build metadata (+...), which npm drops from a
 * package's version. One difference stays: "dev" sorts before "rc" on both, but after "alpha" and "beta"
 * on npm only, so a build after v1.2.3 comes after v1.2.4-beta.1 there; the release tags are vX.Y.Z and
 * vX.Y.Z-rc.N (.github/workflows/release.yml).
 */
export function semver(version) {
  let v = version.trim();
  const pre = [];
  const dirty = v.endsWith("-dirty");
  if (dirty) v = v.slice(0, -"-dirty".length);
  let out;
  const m = DESCRIBE.exec(v);
  if (m) {
    const [major, minor, patch] = m.slice(1, 4).map(Number);
    const [, , , , tagPre, ahead, hash] = m;
    const after = ahead !== undefined || dirty;
    if (tagPre) {
      out = `${major}.${minor}.${patch}`;
      pre.push(...tagPre.split("."));
      if (after) pre.push("dev", String(Number(ahead ?? 0)));
    } else if (after) {
      out = `${major}.${minor}.${patch + 1}`;
      pre.push("dev", String(Number(ahead ?? 0)));
    } else {
      out = `${major}.${minor}.${patch}`;
    }
    if (hash) pre.push(`g${hash}`);
  } else if (/^[0-9a-f]{4,40}$/.test(v)) {
    out = "0.0.0";
    pre.push(`g${v}`);
  } else {
    out = "0.0.0";
    pre.push(v.replace(/[^0-9A-Za-z-]+/g, ".").replace(/^\.+|\.+$/g, "") || "unknown");
  }
  if (dirty) pre.push("dirty");
  return pre.length ? `${out}-${pre.join(".")}` : out;
}

const platformPackage = (goPlatform) => {
  const [os, cpu] = PLATFORMS[goPlatform];
  return { name: `@orgportal/portald-${os}-${cpu}`, os, cpu };
};

function pack(dir, out) {
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out, dir], { encoding: "utf8" });
  return path.join(out, JSON.parse(json)[0].filename);
}

function main() {
  const { values } = parseArgs({
    options: {
      version: { type: "string", default: "dev" },
      bins: { type: "string", default: "build/packages/bin" },
      out: { type: "string", default: "build/packages/npm" },
      platforms: { type: "string", default: Object.keys(PLATFORMS).join(",") },
      main: { type: "boolean", default: false },
      "print-version": { type: "boolean", default: false },
    },
  });
  const version = semver(values.version);
  if (values["print-version"]) {
    console.log(version);
    return;
  }
  const out = path.resolve(values.out);
  const mainPkg = JSON.parse(readFileSync(path.join(here, "portald", "package.json"), "utf8"));
  const stage = path.join(out, "stage");
  mkdirSync(out, { recursive: true });
  const tarballs = [];

  for (const goPlatform of values.platforms.split(",").filter(Boolean)) {
    if (!PLATFORMS[goPlatform]) throw new Error(`unknown platform ${goPlatform}`);
    const { name, os, cpu } = platformPackage(goPlatform);
    const exe = os === "win32" ? "portald.exe" : "portald";
    const dir = path.join(stage, `portald-${os}-${cpu}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, "bin"), { recursive: true });
    copyFileSync(path.resolve(values.bins, goPlatform, exe), path.join(dir, "bin", exe));
    // npm keeps the executable bit of a packed file.
    chmodSync(path.join(dir, "bin", exe), 0o755);
    const pkg = {
      name,
      version,
      description: `The portald binary for ${os} ${cpu}: installed by the package portald, not meant to be used alone`,
      license: "Apache-2.0",
      // Where the project lives, as the main package says; no "directory": no directory of the repository
      // holds this package, which is written here.
      homepage: mainPkg.homepage,
      repository: { type: mainPkg.repository.type, url: mainPkg.repository.url },
      bugs: mainPkg.bugs,
      os: [os],
      cpu: [cpu],
      files: [`bin/${exe}`],
      preferUnplugged: true,
    };
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
    writeFileSync(path.join(dir, "README.md"), `# ${name}\n\nThe portald binary for ${os} ${cpu}. Install \`portald\`, which depends on it.\n`);
    // npm packs a LICENSE found in the package's directory, whatever "files" says.
    copyFileSync(path.join(repo, "LICENSE"), path.join(dir, "LICENSE"));
    tarballs.push(pack(dir, out));
  }

  if (values.main) {
    const dir = path.join(stage, "portald");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, "bin"), { recursive: true });
    const src = path.join(here, "portald");
    for (const f of ["index.js", "index.d.ts", "README.md", "bin/portald.js"]) copyFileSync(path.join(src, f), path.join(dir, f));
    copyFileSync(path.join(repo, "LICENSE"), path.join(dir, "LICENSE"));
    chmodSync(path.join(dir, "bin/portald.js"), 0o755);
    // The emulator's types, generated from emulator.yaml for clients/typescript: types only, so a .d.ts.
    copyFileSync(path.join(repo, "clients/typescript/src/emulator.gen.ts"), path.join(dir, "emulator.gen.d.ts"));
    const pkg = structuredClone(mainPkg);
    pkg.version = version;
    pkg.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((p) => [platformPackage(p).name, version]));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
    tarballs.push(pack(dir, out));
  }
  rmSync(stage, { recursive: true, force: true });
  for (const t of tarballs) console.log(t);
}

// Run as a script, not when a test imports semver.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
