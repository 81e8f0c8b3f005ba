// Starts the reference server, cmd/portald, for a test file: built from this repository with `go build` (or
// taken from $PORTALD_BIN), on a free loopback port with a throwaway in-memory store seeded with the demo
// organization; over HTTPS with the pair it generates in a temporary directory when asked.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The demo organization's fixtures (cmd/portald's built-in seed, openapi.yaml's x-example-fixtures). */
export const demo = {
  portalId: "0123456789ABCDEF",
  adminToken: "demo-admin-token",
  memberToken: "demo-user-token",
  admin: "admin",
  adminPassword: "admin-password",
  member: "jsmith",
  memberPassword: "jsmith-password",
  /** The demo organization's registered application: confidential, redirecting to any loopback URI. */
  clientId: "demo-app",
  clientSecret: "demo-app-secret",
  roads: "93b54c8930ae46d9a00a7820cb3ebbd1",
  parcels: "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8",
  hydrants: "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3",
  projects: "1a9ad803da604628b08c968ce602a231",
  archive: "6c5b4a39281746e5b0a9f8e7d6c5b4a3",
  unknownItem: "00000000000000000000000000000000",
} as const;

export interface PortaldOptions {
  /** Serve HTTPS (-tls), with a certificate portald writes into its temporary directory. */
  tls?: boolean;
  /** The segment before /sharing/rest (-context), e.g. "/portal". */
  context?: string;
}

export interface Portald {
  /** The REST root, `http://127.0.0.1:PORT[/context]/sharing/rest` (https with `tls`). */
  readonly base: string;
  /** With `tls`: the certificate file portald wrote, the one clients trust. */
  readonly certFile?: string;
  /**
   * Restores the demo organization (over HTTPS, from a process that trusts `certFile`: Node.js reads
   * NODE_EXTRA_CA_CERTS when it starts).
   */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

// The repository root: the nearest parent holding the module's go.mod.
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const mod = path.join(dir, "go.mod");
    if (existsSync(mod) && readFileSync(mod, "utf8").startsWith("module github.com/orgportal/portal-api\n")) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("repository root (go.mod of github.com/orgportal/portal-api) not found");
    dir = parent;
  }
}

export async function startPortald(options: PortaldOptions = {}): Promise<Portald> {
  const tmp = mkdtempSync(path.join(tmpdir(), "portald-ts-"));
  let bin = process.env["PORTALD_BIN"];
  if (!bin) {
    bin = path.join(tmp, "portald");
    execFileSync(process.env["GO"] ?? "go", ["build", "-o", bin, "./cmd/portald"], { cwd: repoRoot(), stdio: "inherit" });
  }
  // Request logs go to stderr; keep them for the error message of a failed start-up only.
  const args = ["-addr", "127.0.0.1:0", "-db", ":memory:", "-log-level", "warn"];
  if (options.tls) args.push("-tls", "-tls-cert", path.join(tmp, "cert.pem"), "-tls-key", path.join(tmp, "key.pem"));
  if (options.context) args.push("-context", options.context);
  const child = spawn(bin, args, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    if (stderr.length < 16384) stderr += b.toString();
  });

  let base: string, certFile: string | undefined;
  try {
    ({ base, certFile } = await startLine(child, () => stderr));
  } catch (e) {
    child.kill("SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  const origin = new URL(base).origin;

  return {
    base,
    ...(certFile ? { certFile } : {}),
    async reset() {
      // The emulator's endpoints take JSON only, so no web page can call them.
      const r = await fetch(`${origin}/emulator/reset`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      if (!r.ok) throw new Error(`POST /emulator/reset: HTTP ${r.status} ${await r.text()}`);
      await r.body?.cancel();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

// Waits for portald's first stdout line, "portald listening on ADDR, API at URL, ..., HTTPS certificate FILE (...",
// and returns URL and FILE.
function startLine(child: ChildProcess, stderr: () => string): Promise<{ base: string; certFile?: string }> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      const line = out.slice(0, nl);
      const m = /API at (https?:\/\/\S+?\/sharing\/rest),/.exec(line);
      const cert = /HTTPS certificate (\S+) \(/.exec(line)?.[1];
      if (m?.[1]) resolve({ base: m[1], ...(cert ? { certFile: cert } : {}) });
      else reject(new Error(`unexpected portald start-up line: ${out.slice(0, nl)}`));
    };
    const onExit = (code: number | null) => reject(new Error(`portald exited (${code}) before listening:\n${stderr()}`));
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}
