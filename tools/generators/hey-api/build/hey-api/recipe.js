import { client } from "./gen/client.gen.js";
export class PortalError extends Error {
    error;
    constructor(error) {
        super(error.message);
        this.error = error;
    }
}
// A list goes as one field holding a JSON array, not as the repeated keys the form serializer writes.
client.interceptors.request.use(async (request) => {
    if (!request.headers.get("Content-Type")?.startsWith("application/x-www-form-urlencoded"))
        return request;
    const form = new URLSearchParams(await request.text()), body = new URLSearchParams();
    for (const key of new Set(form.keys())) {
        const values = form.getAll(key);
        body.set(key, values.length > 1 ? JSON.stringify(values) : values[0]);
    }
    return new Request(request, { body });
});
// The portal answers errors with HTTP 200 and {"error": {...}}.
client.interceptors.response.use(async (response) => {
    const answer = await response.clone().json().catch(() => undefined);
    if (answer && typeof answer === "object" && "error" in answer)
        throw new PortalError(answer.error);
    return response;
});
