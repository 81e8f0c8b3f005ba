// Chromium (Debian's, driven by playwright-core: no browser download) trusting portald's certificate as a person
// does it: the CA, the certificate file's last entry, imported as an authority into the NSS database of the
// browser's $HOME.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";

export interface TrustingBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

export async function launchTrusting(certFile: string): Promise<TrustingBrowser> {
  const home = mkdtempSync(path.join(tmpdir(), "chromium-home-"));
  try {
    const certs = readFileSync(certFile, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (certs.length < 2) throw new Error(`${certFile}: want the server's certificate and its CA, found ${certs.length} certificates`);
    const ca = path.join(home, "ca.pem");
    writeFileSync(ca, `${certs[certs.length - 1]}\n`);
    const db = path.join(home, ".pki", "nssdb");
    mkdirSync(db, { recursive: true });
    const certutil = process.env["CERTUTIL"] ?? "/usr/bin/certutil";
    execFileSync(certutil, ["-d", `sql:${db}`, "-N", "--empty-password"]);
    execFileSync(certutil, ["-d", `sql:${db}`, "-A", "-t", "C,,", "-n", "portald", "-i", ca]);
    const browser = await chromium.launch({
      executablePath: process.env["CHROMIUM"] ?? "/usr/bin/chromium",
      // Chromium reads the NSS database of $HOME on Linux.
      env: { ...process.env, HOME: home },
      args: ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    return {
      browser,
      async close() {
        await browser.close();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
}
