import createClient from "openapi-fetch";
export class PortalError extends Error {
    error;
    constructor(error) {
        super(error.message);
        this.error = error;
    }
}
// One URL-encoded form: an object field as its JSON text, a list as one field holding a JSON array.
const bodySerializer = (body) => new URLSearchParams(Object.entries(body ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === "string" ? v : JSON.stringify(v)]])));
// The portal answers errors with HTTP 200 and {"error": {...}}.
const errorEnvelope = {
    async onResponse({ response }) {
        const answer = await response.clone().json().catch(() => undefined);
        if (answer && typeof answer === "object" && "error" in answer)
            throw new PortalError(answer.error);
    },
};
export function createPortalClient(baseUrl, token) {
    const headers = { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Bearer ${token}` };
    const client = createClient({ baseUrl, headers, bodySerializer, querySerializer: { array: { style: "form", explode: false } } });
    client.use(errorEnvelope);
    return client;
}
