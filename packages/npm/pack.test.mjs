// pack.mjs's semver versions: the cases of packages/version_cases.json, which packages/python/test_build_wheel.py
// checks build_wheel.py's PEP 440 versions against, so that an npm package and a wheel of one build mean the same
// version. make test-npm runs it (node --test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { semver } from "./pack.mjs";

const cases = JSON.parse(readFileSync(new URL("../version_cases.json", import.meta.url), "utf8"));

// semver.org 2.0.0, the grammar npm takes (without build metadata, which npm drops).
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$/;

/** semver.org's precedence: < 0, 0 or > 0. */
function compare(a, b) {
  const [, ...x] = SEMVER.exec(a);
  const [, ...y] = SEMVER.exec(b);
  for (let i = 0; i < 3; i++) if (Number(x[i]) !== Number(y[i])) return Number(x[i]) - Number(y[i]);
  if (x[3] === undefined || y[3] === undefined) return (x[3] === undefined) - (y[3] === undefined);
  const p = x[3].split("."), q = y[3].split(".");
  for (let i = 0; i < Math.min(p.length, q.length); i++) {
    const pn = /^\d+$/.test(p[i]), qn = /^\d+$/.test(q[i]);
    if (pn && qn && Number(p[i]) !== Number(q[i])) return Number(p[i]) - Number(q[i]);
    if (pn !== qn) return pn ? -1 : 1;
    if (!pn && p[i] !== q[i]) return p[i] < q[i] ? -1 : 1;
  }
  return p.length - q.length;
}

for (const c of cases.cases) {
  test(`semver(${c.describe})`, () => {
    const got = semver(c.describe);
    assert.equal(got, c.semver);
    assert.match(got, SEMVER);
  });
}

test("after a tag is before the next patch", () => {
  const v = semver("v1.2.3-4-gabc1234");
  assert.ok(compare("1.2.3", v) < 0 && compare(v, "1.2.4") < 0, v);
  const dirty = semver("v1.2.3-dirty");
  assert.ok(compare("1.2.3", dirty) < 0 && compare(dirty, "1.2.4") < 0, dirty);
  const rc = semver("v1.3.0-rc.1-4-gabc1234");
  assert.ok(compare("1.3.0-rc.1", rc) < 0 && compare(rc, "1.3.0-rc.2") < 0, rc);
});

test("ascending", () => {
  const versions = cases.ascending.map(semver);
  for (let i = 1; i < versions.length; i++) assert.ok(compare(versions[i - 1], versions[i]) < 0, `${versions[i - 1]} < ${versions[i]}`);
});

test("the comparison is semver's", () => {
  // semver.org's own example of precedence.
  const order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"];
  for (let i = 1; i < order.length; i++) assert.ok(compare(order[i - 1], order[i]) < 0, `${order[i - 1]} < ${order[i]}`);
});

test("surrounding space", () => assert.equal(semver(" v1.2.3\n"), "1.2.3"));
