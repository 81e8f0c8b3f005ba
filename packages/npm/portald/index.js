// portald, the organization portal emulator, for Node.js test suites: startPortal() runs the binary of this
// platform's package (@orgportal/portald-<platform>-<arch>, an optional dependency npm installs for the
// machine it runs on) on a free loopback port with an in-memory store, and drives its /emulator/ endpoints.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The platforms with a binary package, as process.platform-process.arch. */
export const platforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

/** The demo organizations of portald's built-in seed (server/seed/demo.yaml). */
export const demo = Object.freeze({
  orgId: "0123456789ABCDEF",
  otherOrgId: "FEDCBA9876543210",
  admin: "admin",
  adminPassword: "admin-password",
  adminToken: "demo-admin-token",
  member: "jsmith",
  memberPassword: "jsmith-password",
  memberToken: "demo-user-token",
  publisherToken: "demo-publisher-token",
  clientId: "demo-app",
  clientSecret: "demo-app-secret",
  roads: "93b54c8930ae46d9a00a7820cb3ebbd1",
  parcels: "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8",
  hydrants: "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3",
  projects: "1a9ad803da604628b08c968ce602a231",
  archive: "6c5b4a39281746e5b0a9f8e7d6c5b4a3",
});

/** An /emulator/ call the emulator refused: its HTTP status and error envelope. */
export class PortalError extends Error {
  constructor(status, body, what) {
    const err = (body && typeof body === "object" && body.error) || {};
    const details = Array.isArray(err.details) ? err.details : [];
    super(`${what}: HTTP ${status}: ${err.message ?? JSON.stringify(body)}${details.length ? ` (${details.join("; ")})` : ""}`);
    this.name = "PortalError";
    this.status = status;
    this.body = body;
    this.details = details;
  }
}

/** The portald binary: $PORTALD_BIN, else the one of this platform's package. */
export function binaryPath() {
  const env = process.env["PORTALD_BIN"];
  if (env) return env;
  const key = `${process.platform}-${process.arch}`;
  if (!platforms.includes(key)) throw new Error(`portald: no binary for ${key}; set PORTALD_BIN`);
  const pkg = `@orgportal/portald-${key}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`portald: ${pkg} is not installed (npm installs it with portald unless optional dependencies are omitted); or set PORTALD_BIN`);
  }
  return path.join(dir, "bin", process.platform === "win32" ? "portald.exe" : "portald");
}

// portald's first line on stdout (cmd/portald startLine).
const START_LINE = /^portald listening on ([^ ,]+), API at (\S+),/;
const CERT = /, HTTPS certificate (.+?) \(/;
const TOKENS = /, demo tokens: (.*)$/;

// What process.exit (or the event loop's end) must still do for the portals not stopped: kill each, remove
// its directory. One listener for them all, however many portals run.
const onExit = new Set();
process.on("exit", () => {
  for (const f of onExit) f();
});

/** A Go duration: "2h", or milliseconds. */
const duration = (d) => (typeof d === "number" ? `${d}ms` : d);

/**
 * Starts portald on a free loopback port with an in-memory store.
 * @param {import("./index.js").PortalOptions} [options]
 * @returns {Promise<import("./index.js").Portal>}
 */
export async function startPortal(options = {}) {
  const tmp = mkdtempSync(path.join(tmpdir(), "portald-"));
  // -exit-with-stdin: portald ends when this process does, however it ends (a signal, a crash, a CI
  // timeout), since the pipe held as its stdin closes then; process.on("exit") sees none of those.
  const args = ["-addr", "127.0.0.1:0", "-db", ":memory:", "-exit-with-stdin", "-log-level", options.logLevel ?? "warn"];
  if (options.tls) args.push("-tls", "-tls-cert", path.join(tmp, "cert.pem"), "-tls-key", path.join(tmp, "key.pem"));
  if (options.seed) args.push("-seed", options.seed);
  if (options.adminToken) args.push("-admin-token", options.adminToken);
  args.push(...(options.args ?? []));
  const child = spawn(options.binary ?? binaryPath(), args, { stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.on("error", () => {}); // closed under it when portald ends first: nothing to do
  // Kills portald and removes its directory: at the process's exit, or at once when start-up fails.
  const killAndRemove = () => {
    child.kill();
    rmSync(tmp, { recursive: true, force: true });
  };
  onExit.add(killAndRemove);
  const abandon = () => {
    onExit.delete(killAndRemove);
    killAndRemove();
  };
  // Kept for the message of a failed start-up; read on, so that portald never blocks on a full pipe.
  let stderr = "";
  child.stderr.on("data", (b) => {
    stderr = (stderr + b.toString()).slice(-16384);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));

  let line;
  try {
    line = await new Promise((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`portald did not start within ${options.startupTimeoutMs ?? 30000} ms: ${stderr}`)), options.startupTimeoutMs ?? 30000);
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.stdout.on("data", (b) => {
        out += b.toString();
        const nl = out.indexOf("\n");
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(out.slice(0, nl).trim());
        }
      });
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`portald exited (${code}) before listening: ${out}${stderr}`));
      });
    });
  } catch (e) {
    abandon();
    throw e;
  }
  const m = START_LINE.exec(line);
  if (!m) {
    abandon();
    throw new Error(`portald: unexpected start-up line: ${line}`);
  }
  const [, address, restUrl] = m;
  const url = restUrl.slice(0, -"/sharing/rest".length);
  const scheme = options.tls ? "https" : "http";
  const emulatorUrl = `${scheme}://${address}/emulator`;
  const caFile = CERT.exec(line)?.[1];
  const tokens = Object.fromEntries((TOKENS.exec(line)?.[1] ?? "").split(" ").filter(Boolean).map((p) => p.split("=", 2)));
  // One kept-alive connection pool: a test's reset costs a round trip, not a TCP and TLS handshake.
  const agent = options.tls ? new https.Agent({ keepAlive: true, ca: readFileSync(caFile) }) : new http.Agent({ keepAlive: true });
  const mod = options.tls ? https : http;

  const call = (method, p, body, query) =>
    new Promise((resolve, reject) => {
      const u = new URL(emulatorUrl + p);
      for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
      const headers = { Accept: "application/json" };
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      if (data) {
        headers["Content-Type"] = "application/json";
        headers["Content-Length"] = String(data.length);
      }
      if (options.adminToken) headers["Authorization"] = `Bearer ${options.adminToken}`;
      const req = mod.request(u, { method, headers, agent }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const raw = Buffer.concat(chunks).toString();
          let doc;
          try {
            doc = raw ? JSON.parse(raw) : undefined;
          } catch {
            doc = raw;
          }
          if ((res.statusCode ?? 0) >= 300) reject(new PortalError(res.statusCode, doc, `${method} ${u.pathname}`));
          else resolve(doc);
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(data);
    });
  const name = (s) => encodeURIComponent(s);

  let stopped;
  const portal = {
    url,
    restUrl,
    emulatorUrl,
    address,
    caFile,
    tokens,
    process: child,
    stop() {
      stopped ??= (async () => {
        agent.destroy();
        // SIGTERM: portald shuts down gracefully (on Windows, the process ends).
        if (child.exitCode === null && child.signalCode === null) child.kill();
        await exited;
        onExit.delete(killAndRemove);
        rmSync(tmp, { recursive: true, force: true });
      })();
      return stopped;
    },
    async reset() {
      await call("POST", "/reset");
    },
    async snapshot(n) {
      await call("PUT", `/snapshots/${name(n)}`);
    },
    async restore(n) {
      await call("POST", `/snapshots/${name(n)}/restore`);
    },
    async snapshots() {
      return (await call("GET", "/snapshots")).snapshots;
    },
    async deleteSnapshot(n) {
      await call("DELETE", `/snapshots/${name(n)}`);
    },
    faults: {
      add: (fault) => call("POST", "/faults", fault.delay === undefined ? fault : { ...fault, delay: duration(fault.delay) }),
      list: async () => (await call("GET", "/faults")).faults,
      remove: async (id) => {
        await call("DELETE", `/faults/${name(typeof id === "string" ? id : id.id)}`);
      },
      clear: async () => {
        await call("DELETE", "/faults");
      },
    },
    async journal(query = {}) {
      const q = { ...query, unmatched: query.unmatched === undefined ? undefined : String(query.unmatched) };
      return (await call("GET", "/requests", undefined, q)).requests;
    },
    async clearJournal() {
      await call("DELETE", "/requests");
    },
    clock: {
      get: () => call("GET", "/clock"),
      advance: (by) => call("POST", "/clock", { advance: duration(by) }),
      set: (to) => call("POST", "/clock", { set: to instanceof Date ? to.toISOString() : to }),
      reset: () => call("POST", "/clock", { reset: true }),
    },
    organizations: {
      add: async (org) => (await call("POST", "/organizations", org)).id,
      remove: async (id) => {
        await call("DELETE", `/organizations/${name(id)}`);
      },
    },
    async fresh(n) {
      await portal.restore(n);
      await Promise.all([portal.faults.clear(), portal.clearJournal(), portal.clock.reset()]);
    },
  };
  return portal;
}
