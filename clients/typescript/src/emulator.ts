// A typed client of the emulator's own endpoints (emulator.yaml): faults, the journal, the clock, snapshots,
// organizations and reset, for Node test suites of code that automates a portal.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./emulator.gen.js";

export type EmulatorFault = components["schemas"]["Fault"];
export type EmulatorFaultError = components["schemas"]["FaultError"];
export type EmulatorRequest = components["schemas"]["Request"];
export type EmulatorClockState = components["schemas"]["ClockState"];
export type EmulatorSnapshot = components["schemas"]["Snapshot"];
export type EmulatorOrganization = components["schemas"]["Organization"];
export type { paths as emulatorPaths, components as emulatorComponents } from "./emulator.gen.js";

/** A refused or failed emulator call: its HTTP status and the envelope's message and details. */
export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[],
  ) {
    super(`${message} (HTTP ${status})${details.length ? `: ${details.join("; ")}` : ""}`);
    this.name = "EmulatorError";
  }
}

export interface EmulatorClientOptions {
  /** The token portald was started with (`-admin-token`), if any. */
  adminToken?: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface EmulatorClient {
  /** The openapi-fetch client of emulator.yaml, for anything the methods below do not cover. */
  readonly raw: Client<paths>;
  reset(): Promise<void>;
  /** Adds a fault rule; resolves with it, its `id` filled in. */
  addFault(fault: EmulatorFault): Promise<EmulatorFault>;
  faults(): Promise<EmulatorFault[]>;
  removeFault(id: string): Promise<void>;
  clearFaults(): Promise<void>;
  /**
   * The journal, oldest first; `operation` is an operationId of openapi.yaml, or "(unmatched)";
   * `unmatched: true` keeps the calls that matched no operation, `false` the others.
   */
  requests(query?: { operation?: string; unmatched?: boolean; since?: number; limit?: number }): Promise<EmulatorRequest[]>;
  /** The calls that matched no operation (404): what a client asked for that the emulator does not have. */
  unmatched(): Promise<EmulatorRequest[]>;
  clearRequests(): Promise<void>;
  clock(): Promise<EmulatorClockState>;
  /** Moves the clock by a Go duration such as "2h" or "-90s". */
  advanceClock(by: string): Promise<EmulatorClockState>;
  setClock(to: Date): Promise<EmulatorClockState>;
  resetClock(): Promise<EmulatorClockState>;
  snapshot(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  snapshots(): Promise<EmulatorSnapshot[]>;
  deleteSnapshot(name: string): Promise<void>;
  createOrganization(org: EmulatorOrganization): Promise<void>;
  deleteOrganization(id: string): Promise<void>;
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

// The answer's value, or an EmulatorError from its envelope.
function value<T>(r: Result<T>): T {
  if (r.response.ok && r.data !== undefined) return r.data;
  const env = (r.error ?? {}) as { error?: { message?: string; details?: string[] } };
  throw new EmulatorError(r.response.status, env.error?.message ?? r.response.statusText, env.error?.details ?? []);
}

/**
 * A client of the emulator at `origin` (`http://127.0.0.1:PORT`, the server root, not the API's base).
 *
 * ```ts
 * const emu = createEmulatorClient("http://127.0.0.1:8080");
 * await emu.addFault({ operation: "updateSettings", error: { code: 499 } });
 * ```
 */
export function createEmulatorClient(origin: string, options: EmulatorClientOptions = {}): EmulatorClient {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (options.adminToken) headers["Authorization"] = `Bearer ${options.adminToken}`;
  const raw = createClient<paths>({ baseUrl: origin.replace(/\/+$/, ""), headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const empty = { body: {} };
  const done = async (p: Promise<Result<unknown>>) => {
    value(await p);
  };
  return {
    raw,
    reset: () => done(raw.POST("/emulator/reset", empty)),
    addFault: async (fault) => value(await raw.POST("/emulator/faults", { body: fault })),
    faults: async () => value(await raw.GET("/emulator/faults")).faults,
    removeFault: (id) => done(raw.DELETE("/emulator/faults/{id}", { params: { path: { id } }, ...empty })),
    clearFaults: () => done(raw.DELETE("/emulator/faults", empty)),
    requests: async (query = {}) => value(await raw.GET("/emulator/requests", { params: { query } })).requests,
    unmatched: async () => value(await raw.GET("/emulator/requests", { params: { query: { unmatched: true } } })).requests,
    clearRequests: () => done(raw.DELETE("/emulator/requests", empty)),
    clock: async () => value(await raw.GET("/emulator/clock")),
    advanceClock: async (by) => value(await raw.POST("/emulator/clock", { body: { advance: by } })),
    setClock: async (to) => value(await raw.POST("/emulator/clock", { body: { set: to.toISOString() } })),
    resetClock: async () => value(await raw.POST("/emulator/clock", { body: { reset: true } })),
    snapshot: (name) => done(raw.PUT("/emulator/snapshots/{name}", { params: { path: { name } }, ...empty })),
    restore: (name) => done(raw.POST("/emulator/snapshots/{name}/restore", { params: { path: { name } }, ...empty })),
    snapshots: async () => value(await raw.GET("/emulator/snapshots")).snapshots,
    deleteSnapshot: (name) => done(raw.DELETE("/emulator/snapshots/{name}", { params: { path: { name } }, ...empty })),
    createOrganization: (org) => done(raw.POST("/emulator/organizations", { body: org })),
    deleteOrganization: (id) => done(raw.DELETE("/emulator/organizations/{id}", { params: { path: { id } }, ...empty })),
  };
}
