// The portal's form encoding. Requests are application/x-www-form-urlencoded; a structured parameter is one
// field whose value is a JSON document (the spec's `encoding.<field>.contentType: application/json`) and a list
// of ids is one comma-separated field (`encoding.<field>: {style: form, explode: false}`). openapi-fetch's stock
// serializer ignores `encoding` and would send objects as "[object Object]".

/** How an operation's form fields are encoded, as listed by the spec's request-body `encoding`. */
export interface FormEncoding {
  /** Fields sent as one JSON document. */
  readonly json: readonly string[];
  /** Array fields sent as one comma-separated value. */
  readonly csv: readonly string[];
}

/** The encoding derived from the values when an operation's encoding is not known: an object or an array is a
 * JSON document, except `items`, the portal's comma-separated list of ids. */
function derived(field: string, value: unknown): "json" | "csv" | "plain" {
  if (field === "items" && Array.isArray(value)) return "csv";
  if (typeof value === "object" && value !== null) return "json";
  return "plain";
}

/**
 * Encodes a request body as the portal expects it. Fields listed in `encoding.json` are JSON-encoded, arrays in
 * `encoding.csv` are joined with commas, other scalars are sent as text (booleans as `true`/`false`). Fields not
 * listed fall back to what their values suggest (see {@link FormEncoding}). Undefined and null fields are left
 * out: the portal treats an absent parameter as "leave unchanged".
 */
export function encodeForm(body: object, encoding?: FormEncoding): URLSearchParams {
  const form = new URLSearchParams();
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const how = encoding?.json.includes(field)
      ? "json"
      : encoding?.csv.includes(field)
        ? "csv"
        : derived(field, value);
    form.append(field, encodeField(value, how));
  }
  return form;
}

function encodeField(value: unknown, how: "json" | "csv" | "plain"): string {
  switch (how) {
    case "json":
      // A string is taken as a document the caller encoded already.
      return typeof value === "string" ? value : JSON.stringify(value);
    case "csv": {
      if (!Array.isArray(value)) return String(value);
      const parts = value.map((v) => String(v));
      // An element holding a comma cannot be told apart once joined; the portal also takes a JSON array of
      // strings for these fields, so send that instead.
      return parts.some((p) => p.includes(",")) ? JSON.stringify(parts) : parts.join(",");
    }
    case "plain":
      return String(value);
  }
}

/** A body serializer for openapi-fetch that applies {@link encodeForm}. */
export function formBodySerializer(encoding?: FormEncoding): (body: unknown) => string {
  return (body) => encodeForm(body as object, encoding).toString();
}
