// The form encoding and the error helpers on their own, and the exact request the client puts on the wire,
// captured by a stand-in fetch.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPortalClient, encodeForm, errorEnvelope, operations, PortalError, unwrap } from "../src/index.js";

describe("encodeForm", () => {
  test("the spec's encoding: JSON fields as one document, booleans as true/false, absent fields left out", () => {
    const form = encodeForm(
      {
        informationalBanner: { text: "Read-only & closed", bgColor: "grey", fontColor: "#FFF", enabled: true },
        portalConfigProperties: { httpsDomains: ["example.org"], tokenExpiration: null },
        clearEmptyFields: false,
        anonymousAccessNotice: undefined,
        authenticatedAccessNotice: null,
        f: "json",
      },
      operations.updateSettings,
    );
    assert.deepEqual([...form], [
      ["informationalBanner", '{"text":"Read-only & closed","bgColor":"grey","fontColor":"#FFF","enabled":true}'],
      ["portalConfigProperties", '{"httpsDomains":["example.org"],"tokenExpiration":null}'],
      ["clearEmptyFields", "false"],
      ["f", "json"],
    ]);
    // URL-encoded once, spaces as '+'.
    assert.equal(
      form.toString(),
      "informationalBanner=%7B%22text%22%3A%22Read-only+%26+closed%22%2C%22bgColor%22%3A%22grey%22%2C%22fontColor%22%3A%22%23FFF%22%2C%22enabled%22%3Atrue%7D" +
        "&portalConfigProperties=%7B%22httpsDomains%22%3A%5B%22example.org%22%5D%2C%22tokenExpiration%22%3Anull%7D" +
        "&clearEmptyFields=false&f=json",
    );
  });

  test("a JSON field given as a string is sent as it is", () => {
    const form = encodeForm({ informationalBanner: '{"text":"x"}' }, operations.updateSettings);
    assert.equal(form.get("informationalBanner"), '{"text":"x"}');
  });

  test("items: comma-separated; a JSON array when an id holds a comma", () => {
    assert.equal(encodeForm({ items: ["a", "b", "c"], folder: "/" }, operations.moveItems).toString(), "items=a%2Cb%2Cc&folder=%2F");
    assert.equal(encodeForm({ items: ["a,b", "c"] }, operations.moveItems).get("items"), '["a,b","c"]');
  });

  test("updateMember's categories: comma-separated like items; a JSON array when a path holds a comma", () => {
    const form = encodeForm({ categories: ["/Office Location/USA", "/Department"] }, operations.updateMember);
    assert.equal(form.get("categories"), "/Office Location/USA,/Department");
    assert.equal(encodeForm({ categories: ["/Office/Portland, Maine"] }, operations.updateMember).get("categories"), '["/Office/Portland, Maine"]');
  });

  test("without the spec's encoding the values decide: objects and arrays JSON, items comma-separated", () => {
    const form = encodeForm({ memberCategorySchema: { memberCategorySchema: [{ title: "A" }] }, categories: ["/A"], items: ["x", "y"], num: 10 });
    assert.deepEqual([...form], [
      ["memberCategorySchema", '{"memberCategorySchema":[{"title":"A"}]}'],
      ["categories", '["/A"]'],
      ["items", "x,y"],
      ["num", "10"],
    ]);
  });

  test("the generated table holds the spec's encoding", () => {
    assert.deepEqual(operations.updateSettings.json, [
      "anonymousAccessNotice",
      "authenticatedAccessNotice",
      "informationalBanner",
      "portalConfigProperties",
    ]);
    assert.deepEqual(operations.assignMemberCategorySchema.json, ["memberCategorySchema"]);
    assert.deepEqual(operations.updateMember.json, []);
    assert.deepEqual(operations.updateMember.csv, ["categories"]);
    assert.deepEqual(operations.moveItems.csv, ["items"]);
    assert.deepEqual(operations.deleteItems.csv, ["items"]);
    assert.equal(Object.keys(operations).length, 34);
  });
});

describe("error helpers", () => {
  test("errorEnvelope finds the portal's envelope and nothing else", () => {
    assert.deepEqual(errorEnvelope({ error: { code: 400, messageCode: "ORG_1132", message: "m", details: ["d"] } }), {
      code: 400,
      messageCode: "ORG_1132",
      message: "m",
      details: ["d"],
    });
    // details may be missing from other portals' answers: always an array here.
    assert.deepEqual(errorEnvelope({ error: { code: 498, message: "Invalid token." } }), {
      code: 498,
      message: "Invalid token.",
      details: [],
    });
    assert.equal(errorEnvelope({ success: true }), undefined);
    assert.equal(errorEnvelope({ error: "text" }), undefined);
    assert.equal(errorEnvelope(null), undefined);
    // A per-item error inside results is part of a success.
    assert.equal(errorEnvelope({ results: [{ itemId: "a", success: false, error: { code: 500, message: "m" } }] }), undefined);
  });

  test("unwrap: a non-2xx answer without the envelope is a PortalError with the HTTP status", () => {
    const response = new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" });
    assert.throws(
      () => unwrap({ error: "<html>bad gateway</html>", response }),
      (e: unknown) => e instanceof PortalError && e.code === 502 && e.status === 502 && e.message === "HTTP 502 Bad Gateway",
    );
  });
});

describe("the request on the wire", () => {
  // A fetch that records the request and answers with `answer`.
  function capture(answer: unknown) {
    const seen: { method: string; url: string; headers: Headers; body: string }[] = [];
    const fetch = async (req: Request) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: await req.text() });
      return new Response(JSON.stringify(answer), { headers: { "Content-Type": "application/json; charset=utf-8" } });
    };
    return { seen, fetch };
  }

  test("POST: form content type, the spec's encoding, the token in X-Esri-Authorization", async () => {
    const { seen, fetch } = capture({ success: true });
    const portal = createPortalClient("http://portal.test/sharing/rest/", { token: "T", fetch });
    await portal.post("/portals/{portalId}/assignMemberCategorySchema", {
      params: { path: { portalId: "self" } },
      body: { memberCategorySchema: { memberCategorySchema: [{ title: "A" }] }, f: "json" },
    });
    assert.equal(seen.length, 1);
    const [r] = seen;
    assert.equal(r?.method, "POST");
    assert.equal(r?.url, "http://portal.test/sharing/rest/portals/self/assignMemberCategorySchema");
    assert.equal(r?.headers.get("content-type"), "application/x-www-form-urlencoded");
    assert.equal(r?.headers.get("x-esri-authorization"), "Bearer T");
    assert.equal(r?.body, "memberCategorySchema=%7B%22memberCategorySchema%22%3A%5B%7B%22title%22%3A%22A%22%7D%5D%7D&f=json");
  });

  test("GET: query arrays comma-separated, no body, no token header without a token", async () => {
    const { seen, fetch } = capture({ total: 0, start: 1, num: 10, nextStart: -1, users: [] });
    const portal = createPortalClient("http://portal.test/sharing/rest", { fetch });
    await portal.get("/portals/{portalId}/users", {
      params: { path: { portalId: "self" }, query: { categories: ["/Office Location/USA", "/A,B"], num: 5 } },
    });
    const [r] = seen;
    assert.equal(r?.method, "GET");
    assert.equal(r?.url, "http://portal.test/sharing/rest/portals/self/users?categories=%2FOffice%20Location%2FUSA,%2FA%2CB&num=5");
    assert.equal(r?.body, "");
    assert.equal(r?.headers.get("x-esri-authorization"), null);
  });

  test("an error envelope in an HTTP 200 answer rejects with a PortalError", async () => {
    const { fetch } = capture({ error: { code: 400, messageCode: "ORG_1132", message: "Unable to assign member category schema.", details: ["x"] } });
    const portal = createPortalClient("http://portal.test/sharing/rest", { token: "T", fetch });
    await assert.rejects(
      portal.post("/portals/{portalId}/assignMemberCategorySchema", {
        params: { path: { portalId: "self" } },
        body: { memberCategorySchema: { memberCategorySchema: [] } },
      }),
      (e: unknown) =>
        e instanceof PortalError &&
        e.name === "PortalError" &&
        e.code === 400 &&
        e.messageCode === "ORG_1132" &&
        e.message === "Unable to assign member category schema." &&
        e.status === 200 &&
        e.details.length === 1,
    );
  });
});
