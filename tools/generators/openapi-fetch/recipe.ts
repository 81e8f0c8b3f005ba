import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./gen/schema.js";

export class PortalError extends Error {
  constructor(readonly error: { code: number; messageCode?: string; message: string; details?: string[] }) { super(error.message); }
}

// One URL-encoded form: an object field as its JSON text, a list as one field holding a JSON array.
const bodySerializer = (body: unknown) =>
  new URLSearchParams(Object.entries(body ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === "string" ? v : JSON.stringify(v)]])));

// The portal answers errors with HTTP 200 and {"error": {...}}.
const errorEnvelope: Middleware = {
  async onResponse({ response }) {
    const answer: unknown = await response.clone().json().catch(() => undefined);
    if (answer && typeof answer === "object" && "error" in answer) throw new PortalError(answer.error as PortalError["error"]);
  },
};

export function createPortalClient(baseUrl: string, token: string) {
  const headers = { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Bearer ${token}` };
  const client = createClient<paths>({ baseUrl, headers, bodySerializer, querySerializer: { array: { style: "form", explode: false } } });
  client.use(errorEnvelope);
  return client;
}
