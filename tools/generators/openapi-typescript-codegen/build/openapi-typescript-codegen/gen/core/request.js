"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.request = void 0;
// Replaces core/request.ts (--request recipe.ts): one URL-encoded form, objects as JSON and lists as one JSON
// array, the token as a bearer header, and the HTTP-200 error envelope rejected as an ApiError.
const ApiError_1 = require("./ApiError");
const CancelablePromise_1 = require("./CancelablePromise");
const request = (config, options) => new CancelablePromise_1.CancelablePromise((resolve, reject) => {
    const path = options.url.replace(/{(\w+)}/g, (_, k) => encodeURIComponent(String(options.path?.[k])));
    const query = new URLSearchParams(), form = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {}))
        if (v !== undefined)
            query.set(k, String(v));
    for (const [k, v] of Object.entries(options.formData ?? {}))
        if (v !== undefined)
            form.set(k, typeof v === "string" ? v : JSON.stringify(v));
    const token = typeof config.TOKEN === "string" ? config.TOKEN : undefined;
    const url = `${config.BASE}${path}?${query}`;
    fetch(url, { method: options.method, headers: token ? { Authorization: `Bearer ${token}` } : {}, body: options.formData && form })
        .then(async (response) => {
        const body = await response.json();
        if (!body?.error)
            return resolve(body);
        const { status, statusText } = response;
        reject(new ApiError_1.ApiError(options, { url, ok: false, status, statusText, body }, body.error.message));
    })
        .catch(reject);
});
exports.request = request;
