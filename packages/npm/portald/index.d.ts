// Types of portald's Node.js API. The emulator's own shapes come from emulator.yaml, through the types
// openapi-typescript generated for clients/typescript (emulator.gen.d.ts, copied in when packed).
import type { ChildProcess } from "node:child_process";
import type { components } from "./emulator.gen.js";

export type Fault = components["schemas"]["Fault"];
export type FaultError = components["schemas"]["FaultError"];
export type JournalEntry = components["schemas"]["Request"];
export type ClockState = components["schemas"]["ClockState"];
export type Snapshot = components["schemas"]["Snapshot"];
export type Organization = components["schemas"]["Organization"];
export type { components as emulatorComponents, paths as emulatorPaths } from "./emulator.gen.js";

export interface PortalOptions {
  /** Serve HTTPS with a certificate written for this process (`caFile`). */
  tls?: boolean;
  /** A seed file (YAML or JSON, the shape of portald's demo seed) instead of the demo organizations. */
  seed?: string;
  /** More portald flags, e.g. ["-version", "11.0"] or ["-context", "/portal"]. */
  args?: string[];
  /** Start portald with -admin-token and send it on every /emulator/ call. */
  adminToken?: string;
  /** Another portald binary (default: $PORTALD_BIN, else this platform's package). */
  binary?: string;
  /** portald's -log-level (stderr, kept for start-up errors); default "warn". */
  logLevel?: "debug" | "info" | "warn" | "error";
  startupTimeoutMs?: number;
}

/** A Go duration such as "2h" or "-90s", or milliseconds. */
export type Duration = string | number;

export interface Portal {
  /** The portal's root, context included: what the portal's clients take as the portal. */
  readonly url: string;
  /** url + "/sharing/rest". */
  readonly restUrl: string;
  /** The server's root + "/emulator". */
  readonly emulatorUrl: string;
  /** host:port */
  readonly address: string;
  /** With `tls`: the certificate to trust (NODE_EXTRA_CA_CERTS, or an agent's `ca`). */
  readonly caFile?: string;
  /** User name to token, for the demo seed. */
  readonly tokens: Readonly<Record<string, string>>;
  readonly process: ChildProcess;
  /** Stops portald and removes its certificate. */
  stop(): Promise<void>;
  /** The store back to the seed; fault rules, journal and clock offset cleared. */
  reset(): Promise<void>;
  /** Saves the whole store under a name (overwrites). */
  snapshot(name: string): Promise<void>;
  /** The store back to a snapshot, atomically (fault rules, journal and clock stay). */
  restore(name: string): Promise<void>;
  snapshots(): Promise<Snapshot[]>;
  deleteSnapshot(name: string): Promise<void>;
  /** restore(name), then no fault rule, journal or clock offset left: a test's fresh start. */
  fresh(name: string): Promise<void>;
  readonly faults: {
    /** Adds a rule; resolves with it, its id filled in. */
    add(fault: Omit<Fault, "delay"> & { delay?: Duration }): Promise<Fault>;
    list(): Promise<Fault[]>;
    remove(id: string | Fault): Promise<void>;
    clear(): Promise<void>;
  };
  /** The API calls, oldest first. */
  journal(query?: { operation?: string; unmatched?: boolean; since?: number; limit?: number }): Promise<JournalEntry[]>;
  clearJournal(): Promise<void>;
  readonly clock: {
    get(): Promise<ClockState>;
    advance(by: Duration): Promise<ClockState>;
    set(to: Date | string): Promise<ClockState>;
    reset(): Promise<ClockState>;
  };
  readonly organizations: {
    /** Creates an organization from a seed-shaped document; resolves with its id. */
    add(org: Organization): Promise<string>;
    remove(id: string): Promise<void>;
  };
}

export declare function startPortal(options?: PortalOptions): Promise<Portal>;
/** The portald binary: $PORTALD_BIN, else the one of this platform's package. */
export declare function binaryPath(): string;
export declare const platforms: readonly string[];
export declare class PortalError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly details: string[];
}
export declare const demo: Readonly<{
  orgId: string;
  otherOrgId: string;
  admin: string;
  adminPassword: string;
  adminToken: string;
  member: string;
  memberPassword: string;
  memberToken: string;
  publisherToken: string;
  clientId: string;
  clientSecret: string;
  roads: string;
  parcels: string;
  hydrants: string;
  projects: string;
  archive: string;
}>;
