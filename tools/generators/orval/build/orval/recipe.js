// orval's mutator (output.override.mutator in orval.config.mjs): every generated call goes through it.
export const portal = { baseUrl: "" };
export class PortalError extends Error {
    error;
    constructor(error) {
        super(error.message);
        this.error = error;
    }
}
export async function portalFetch(url, init) {
    let body = init.body;
    if (body instanceof URLSearchParams) {
        // A list goes as one field holding a JSON array, not as repeated keys.
        const form = body;
        body = new URLSearchParams([...new Set(form.keys())].map((k) => {
            const values = form.getAll(k);
            return [k, values.length > 1 ? JSON.stringify(values) : values[0]];
        }));
    }
    const response = await fetch(portal.baseUrl + url, { ...init, body });
    const data = await response.json();
    // The portal answers errors with HTTP 200 and {"error": {...}}.
    if (data && typeof data === "object" && "error" in data)
        throw new PortalError(data.error);
    return { data, status: response.status, headers: response.headers };
}
