// ArcGIS REST JS 4.10.2 (@esri/arcgis-rest-request and -portal), unmodified, against portald over HTTPS: every
// way it signs in, what it reads after, the per-item move and each refusal as the library raises it. Run by
// ../official.test.ts in a Node.js process started after portald wrote its certificate, which the process
// trusts the way users do it, through NODE_EXTRA_CA_CERTS (no custom agent, no TLS check turned off).
//
// PORTAL_URL is the REST base (https://127.0.0.1:PORT/portal/sharing/rest), PORTAL_CERT the certificate file.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  ApplicationCredentialsManager,
  ArcGISAuthError,
  ArcGISIdentityManager,
  ArcGISRequestError,
  ArcGISTokenRequestError,
} from "@esri/arcgis-rest-request";
import { getItem, getPortalSettings, getSelf, getUser, getUserContent, moveItem } from "@esri/arcgis-rest-portal";
import { createEmulatorClient, type EmulatorClient } from "../../src/index.js";
import { demo } from "../portald.js";
import { launchTrusting, type TrustingBrowser } from "./browser.js";

const base = process.env["PORTAL_URL"] ?? "";
const certFile = process.env["PORTAL_CERT"] ?? "";
assert.match(base, /^https:\/\/.+\/sharing\/rest$/, "PORTAL_URL: the REST base, over HTTPS");
assert.ok(process.env["NODE_EXTRA_CA_CERTS"], "NODE_EXTRA_CA_CERTS: the certificate portald wrote");


const emulator: EmulatorClient = createEmulatorClient(new URL(base).origin);

beforeEach(async () => {
  await emulator.reset();
});

/** Runs `fn`, which must reject with an error of class `cls`, and returns that error. */
async function rejection<E extends Error>(cls: abstract new (...args: never[]) => E, fn: () => Promise<unknown>): Promise<E> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    return e;
  }
  assert.fail(`expected ${cls.name}, the call succeeded`);
}

/** The operations of the journal since `since`, in order, with the answer's code when it was an error. */
async function calls(since: number): Promise<string[]> {
  const all = await emulator.requests({ since });
  return all.map((r) => (r.answer.success ? r.operation : `${r.operation} ${r.answer.code}`));
}

/** Serves an app's pages on a free loopback port, and returns its origin. */
async function listen(app: http.Server): Promise<string> {
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
}

/** Closes the browser and the app's server, those that were started. */
async function closeAll(browser: TrustingBrowser | undefined, app: http.Server | undefined): Promise<void> {
  await browser?.close();
  if (app) await new Promise((resolve) => app.close(resolve));
}

async function lastSeq(): Promise<number> {
  const all = await emulator.requests();
  return all.length ? all[all.length - 1]!.seq : 0;
}

describe("ArcGISIdentityManager with a user name and password", () => {
  test("signIn: generateToken, then community/self; getSelf and getUser read with its token", async () => {
    const session = await ArcGISIdentityManager.signIn({ username: demo.member, password: demo.memberPassword, portal: base });
    assert.equal(session.username, demo.member);
    // expires read as epoch milliseconds: the two weeks the library asks for.
    assert.ok(session.tokenExpires.getTime() > Date.now() + 20160 * 60_000 - 3_600_000, String(session.tokenExpires));
    const self = await getSelf({ authentication: session });
    assert.equal(self.id, demo.portalId);
    assert.equal(self["portalName"], "ArcGIS Enterprise");
    assert.equal(self["user"].username, demo.member);
    const user = await getUser({ authentication: session });
    assert.equal(user.username, demo.member);
    assert.equal(user.orgId, demo.portalId);
    assert.match(user.id ?? "", /^[0-9a-f]{32}$/);
  });

  test("signIn with a wrong password: ArcGISTokenRequestError, and nothing read", async () => {
    const since = await lastSeq();
    const e = await rejection(ArcGISTokenRequestError, () =>
      ArcGISIdentityManager.signIn({ username: demo.member, password: "wrong", portal: base }),
    );
    assert.equal(e.code, "TOKEN_REFRESH_FAILED");
    assert.equal(e.message, "TOKEN_REFRESH_FAILED: 400: Unable to generate token.");
    assert.deepEqual((e.response as { error?: { details?: string[] } }).error?.details, ["Invalid username or password."]);
    // The library still asks for community/self, anonymously: 499.
    assert.deepEqual(await calls(since), ["generateToken 400", "getSelf 499"]);
  });

  test("a 498 makes the manager sign in again once; a second 498 is raised", async () => {
    const session = await ArcGISIdentityManager.signIn({ username: demo.member, password: demo.memberPassword, portal: base });
    const first = session.token;
    await emulator.addFault({ operation: "getPortal", error: { code: 498 } });
    let since = await lastSeq();
    const self = await getSelf({ authentication: session });
    assert.equal(self["user"].username, demo.member);
    assert.notEqual(session.token, first);
    assert.deepEqual(await calls(since), ["getPortal 498", "generateToken", "getPortal"]);
    // Twice in a row: renewed once, then raised.
    await emulator.addFault({ operation: "getMember", error: { code: 498 }, times: 2 });
    since = await lastSeq();
    const e = await rejection(ArcGISAuthError, () => getUser({ authentication: session }));
    assert.equal(e.code, 498);
    assert.deepEqual(await calls(since), ["getMember 498", "generateToken", "getMember 498"]);
  });
});

describe("ArcGISIdentityManager.fromToken", () => {
  test("a token: community/self gives the user", async () => {
    const session = await ArcGISIdentityManager.fromToken({ token: demo.memberToken, portal: base });
    assert.equal(session.username, demo.member);
    const user = await getUser({ authentication: session });
    assert.equal(user.username, demo.member);
  });

  test("an unknown token: ArcGISAuthError 498, and no renewal", async () => {
    const e = await rejection(ArcGISAuthError, () => ArcGISIdentityManager.fromToken({ token: "not-a-token", portal: base }));
    assert.equal(e.code, 498);
    assert.equal(e.message, "498: Invalid token.");
  });
});

describe("moveItem, the per-item move", () => {
  test("an item at the root and one in a folder, then both back to the root", async () => {
    const session = await ArcGISIdentityManager.signIn({ username: demo.member, password: demo.memberPassword, portal: base });
    assert.deepEqual(await moveItem({ itemId: demo.roads, folderId: demo.archive, authentication: session }), {
      success: true,
      itemId: demo.roads,
      owner: demo.member,
      folder: demo.archive,
    });
    // Parcels is in Projects: the library's URL names no folder.
    assert.deepEqual(await moveItem({ itemId: demo.parcels, folderId: demo.archive, authentication: session }), {
      success: true,
      itemId: demo.parcels,
      owner: demo.member,
      folder: demo.archive,
    });
    const archive = await getUserContent({ owner: demo.member, folderId: demo.archive, portal: base, authentication: session });
    assert.deepEqual(archive.items.map((i) => i.id).sort(), [demo.parcels, demo.roads].sort());
    for (const itemId of [demo.roads, demo.parcels]) {
      const back = await moveItem({ itemId, authentication: session }); // folder=/
      assert.equal(back.success, true);
      assert.equal((await getItem(itemId, { authentication: session }))["ownerFolder"], null);
    }
    // Already at the root: the portal's refusal, raised.
    const e = await rejection(ArcGISRequestError, () => moveItem({ itemId: demo.roads, authentication: session }));
    assert.equal(e instanceof ArcGISAuthError, false);
  });
});

describe("ApplicationCredentialsManager", () => {
  test("fromCredentials: client_credentials at oauth2/token/, the token used for a request", async () => {
    const app = ApplicationCredentialsManager.fromCredentials({ clientId: demo.clientId, clientSecret: demo.clientSecret, portal: base });
    const self = await getSelf({ authentication: app });
    assert.equal(self.id, demo.portalId);
    assert.equal(self["user"], undefined); // an application is no user
    assert.ok(app.token);
    assert.ok(app.expires.getTime() > Date.now() + 60 * 60_000, String(app.expires)); // 7200 minutes asked, capped or not
  });

  test("at sharing/oauth2/token, the OAuth root without /rest (the Maps SDK's, passport-arcgis'), the token used under /rest", async () => {
    const sharing = base.replace(/\/rest$/, "");
    const app = ApplicationCredentialsManager.fromCredentials({ clientId: demo.clientId, clientSecret: demo.clientSecret, portal: sharing });
    const self = await getSelf({ authentication: app, portal: base });
    assert.equal(self.id, demo.portalId);
    const tokens = (await emulator.requests({})).filter((r) => r.operation === "oauthToken");
    assert.deepEqual(tokens.map((r) => [r.path, r.answer.success]), [[`${new URL(sharing).pathname}/oauth2/token/`, true]]);
  });

  test("a wrong client secret: refused, no token", async () => {
    const app = ApplicationCredentialsManager.fromCredentials({ clientId: demo.clientId, clientSecret: "wrong", portal: base });
    const e = await rejection(ArcGISTokenRequestError, () => app.getToken(`${base}/portals/self`));
    assert.equal(e.code, "TOKEN_REFRESH_FAILED");
    assert.equal(e.message, "TOKEN_REFRESH_FAILED: 400: Invalid client_secret");
    assert.equal(app.token, undefined);
    // A request that needs a token raises the token's error. (One that does not is sent anonymously, and
    // the library then fails on its own: ApplicationCredentialsManager has no federatedServers.)
    const fresh = ApplicationCredentialsManager.fromCredentials({ clientId: demo.clientId, clientSecret: "wrong", portal: base });
    const e2 = await rejection(ArcGISTokenRequestError, () => getPortalSettings("self", { authentication: fresh }));
    assert.equal(e2.message, "TOKEN_REFRESH_FAILED: 400: Invalid client_secret");
  });
});

describe("the authorization-code flow of a server-side app, a person signing in in Chromium", () => {
  let browser: TrustingBrowser;
  let app: http.Server;
  let appOrigin: string;
  const signedIn: ArcGISIdentityManager[] = [];
  const codes: string[] = [];
  const callbackErrors: unknown[] = [];
  const redirectUri = () => `${appOrigin}/callback`;

  before(async () => {
    browser = await launchTrusting(certFile);
    // The app: /sign-in sends the browser to the portal, /callback exchanges the code.
    app = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", appOrigin);
      if (url.pathname === "/sign-in") {
        ArcGISIdentityManager.authorize({ clientId: demo.clientId, portal: base, redirectUri: url.searchParams.get("redirect") ?? redirectUri() }, res);
        return;
      }
      if (url.pathname === "/callback") {
        const code = url.searchParams.get("code") ?? "";
        codes.push(code);
        ArcGISIdentityManager.exchangeAuthorizationCode({ clientId: demo.clientId, portal: base, redirectUri: redirectUri() }, code).then(
          (m) => {
            signedIn.push(m);
            res.writeHead(200, { "Content-Type": "text/plain" }).end(`Signed in as ${m.username}`);
          },
          (e: unknown) => {
            callbackErrors.push(e);
            res.writeHead(500, { "Content-Type": "text/plain" }).end(String(e));
          },
        );
        return;
      }
      res.writeHead(404).end();
    });
    appOrigin = await listen(app);
  });
  after(() => closeAll(browser, app));

  /** A person opens the app, is sent to the portal's page, types the user name and password and submits. */
  async function personSignsIn(username: string, password: string): Promise<string> {
    const page = await browser.browser.newPage();
    try {
      await page.goto(`${appOrigin}/sign-in`);
      assert.ok(page.url().startsWith(`${base}/oauth2/authorize?`), page.url());
      assert.match(await page.title(), /^Sign in to ArcGIS Enterprise$/);
      await page.fill("#username", username);
      await page.fill("#password", password);
      await page.click("#signIn");
      await page.waitForLoadState();
      return `${page.url()}\n${await page.textContent("body")}`;
    } finally {
      await page.close();
    }
  }

  test("signed in: the code exchanged, the manager reads as the user, refreshes with its refresh token", async () => {
    const shown = await personSignsIn(demo.admin, demo.adminPassword);
    assert.match(shown, new RegExp(`^${appOrigin}/callback\\?code=[^&=]+\nSigned in as admin$`), String(callbackErrors));
    const session = signedIn.at(-1)!;
    assert.equal(session.username, demo.admin);
    assert.ok(session.refreshToken);
    // Access tokens of the code flow last 30 minutes; the refresh token two weeks (expiration=20160).
    assert.ok(session.tokenExpires.getTime() < Date.now() + 30 * 60_000);
    assert.ok(session.refreshTokenExpires.getTime() > Date.now() + 13 * 24 * 3_600_000);
    const self = await getSelf({ authentication: session });
    assert.equal(self["user"].username, demo.admin);

    // grant_type=refresh_token: a new access token, the refresh token kept.
    const { token, refreshToken } = session;
    let since = await lastSeq();
    await session.refreshCredentials();
    assert.notEqual(session.token, token);
    assert.equal(session.refreshToken, refreshToken);
    assert.deepEqual(await calls(since), ["oauthToken"]);
    assert.equal((await getUser({ authentication: session })).username, demo.admin);

    // A 498: renewed once with the refresh token, then the request again.
    await emulator.addFault({ operation: "getPortal", error: { code: 498 } });
    since = await lastSeq();
    assert.equal((await getSelf({ authentication: session }))["user"].username, demo.admin);
    assert.deepEqual(await calls(since), ["getPortal 498", "oauthToken", "getPortal"]);

    // grant_type=exchange_refresh_token, which the manager uses in the refresh token's last day: a new refresh
    // token, the old one revoked.
    const ending = new ArcGISIdentityManager({
      clientId: demo.clientId,
      portal: base,
      redirectUri: redirectUri(),
      refreshToken,
      refreshTokenExpires: new Date(Date.now() + 3_600_000),
      token: session.token,
      tokenExpires: new Date(Date.now() - 1),
      username: demo.admin,
    });
    since = await lastSeq();
    await ending.refreshCredentials();
    assert.notEqual(ending.refreshToken, refreshToken);
    assert.ok(ending.refreshTokenExpires.getTime() > Date.now() + 13 * 24 * 3_600_000);
    assert.deepEqual(await calls(since), ["oauthToken"]);
    const e = await rejection(ArcGISTokenRequestError, () => session.refreshCredentials());
    assert.match(e.message, /Invalid refresh_token/);
  });

  test("a wrong password: the page again with its message, no code", async () => {
    const shown = await personSignsIn(demo.admin, "wrong");
    assert.match(shown, /\/sharing\/oauth2\/signin\n[\s\S]*Invalid username or password\./);
    assert.equal(signedIn.length, 1);
  });

  test("a code used twice, and a made-up code: REFRESH_TOKEN_EXCHANGE_FAILED", async () => {
    assert.equal(codes.length, 1);
    for (const code of [codes[0]!, "made-up"]) {
      const e = await rejection(ArcGISTokenRequestError, () =>
        ArcGISIdentityManager.exchangeAuthorizationCode({ clientId: demo.clientId, portal: base, redirectUri: redirectUri() }, code),
      );
      assert.equal(e.code, "REFRESH_TOKEN_EXCHANGE_FAILED");
      assert.equal(e.message, "REFRESH_TOKEN_EXCHANGE_FAILED: 400: Invalid authorization code");
    }
  });

  test("a redirect URI the app did not register: the portal's page says so", async () => {
    const page = await browser.browser.newPage();
    try {
      await page.goto(`${appOrigin}/sign-in?redirect=${encodeURIComponent("https://app.example.com/callback")}`);
      assert.ok(page.url().startsWith(`${base}/oauth2/authorize?`), page.url());
      assert.match((await page.textContent("body")) ?? "", /Invalid redirect_uri/);
      assert.equal(await page.locator("form").count(), 0);
    } finally {
      await page.close();
    }
  });
});

describe("the browser flow with PKCE: an app's page signs in and calls the portal from its own origin", () => {
  let browser: TrustingBrowser;
  let app: http.Server;
  let appOrigin: string;
  // REST JS's own browser bundle, as an app's page loads it.
  // (The package exports no subpath to it: read from where npm put it; the tests run in clients/typescript.)
  const bundle = readFileSync("node_modules/@esri/arcgis-rest-request/dist/bundled/request.esm.js", "utf8");
  const page = (script: string) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>app</title></head><body>...` +
    `<script type="module">import { ArcGISIdentityManager, request } from "/request.esm.js";\n` +
    `const portal = ${JSON.stringify(base)}, clientId = ${JSON.stringify(demo.clientId)}, redirectUri = location.origin + "/callback.html";\n` +
    `${script}</script></body></html>`;

  before(async () => {
    browser = await launchTrusting(certFile);
    app = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", appOrigin);
      const send = (type: string, body: string) => res.writeHead(200, { "Content-Type": type }).end(body);
      switch (url.pathname) {
        case "/request.esm.js":
          return send("text/javascript", bundle);
        case "/":
          // beginOAuth2: the page goes to the portal's sign-in page with a PKCE challenge (S256).
          return send("text/html", page(`ArcGISIdentityManager.beginOAuth2({ clientId, portal, redirectUri, popup: false });`));
        case "/callback.html":
          // completeOAuth2: the code and the verifier exchanged at oauth2/token, then a call with the session,
          // both requests to the portal's origin from the app's.
          return send("text/html", page(
            `try {\n` +
            `  const session = await ArcGISIdentityManager.completeOAuth2({ clientId, portal, redirectUri });\n` +
            `  const me = await request(portal + "/community/self", { authentication: session, httpMethod: "GET" });\n` +
            `  document.body.textContent = "Signed in as " + session.username + "; community/self: " + me.username;\n` +
            `} catch (e) { document.body.textContent = "Failed: " + e.name + ": " + e.message; }`,
          ));
        default:
          res.writeHead(404).end();
      }
    });
    appOrigin = await listen(app);
  });
  after(() => closeAll(browser, app));

  test("signed in on the portal's page, the code exchanged with its verifier, the API called across origins", async () => {
    const tab = await browser.browser.newPage();
    const failed: string[] = [];
    tab.on("console", (m) => {
      if (m.type() === "error") failed.push(m.text());
    });
    try {
      const since = await lastSeq();
      await tab.goto(`${appOrigin}/`);
      await tab.waitForURL((u) => u.href.startsWith(`${base}/oauth2/authorize?`));
      const authorize = new URL(tab.url());
      assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
      assert.ok(authorize.searchParams.get("code_challenge"));
      await tab.fill("#username", demo.admin);
      await tab.fill("#password", demo.adminPassword);
      await tab.click("#signIn");
      await tab.waitForURL((u) => u.href.startsWith(`${appOrigin}/callback.html?code=`));
      await tab.waitForFunction("document.body.textContent !== \"...\"");
      assert.equal(await tab.textContent("body"), `Signed in as ${demo.admin}; community/self: ${demo.admin}`, failed.join("\n"));
      assert.deepEqual(await calls(since), ["oauthAuthorize", "oauthSignIn", "oauthToken", "getSelf"]);
    } finally {
      await tab.close();
    }
  });
});
