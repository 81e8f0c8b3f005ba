// A Redocly decorator for build-docs: each example of an
// application/x-www-form-urlencoded request body becomes the form text the
// server takes, so that the page's "Payload" sample can be sent as shown.
//
// Redoc serializes an object example itself, ignoring encoding.contentType:
// a JSON-in-form field comes out as one form field per property
// (informationalBanner's title=..&text=..), or as "[object Object]" when
// nested. A string example is shown as it is. The published openapi.yaml
// keeps its object examples (linters and generators read them); only the
// page's copy changes.
//
// The text percent-encodes what the form syntax needs (%, &, +, =, ;, #,
// spaces as +, and anything outside ASCII) and leaves the JSON punctuation
// readable: a form body is parsed by splitting on & and =, so
// informationalBanner={"text":"Hello"} is one field.
const FORM = "application/x-www-form-urlencoded";

function encode(s) {
  return encodeURIComponent(s)
    .replace(/%20/g, "+")
    .replace(/%(7B|7D|5B|5D|22|3A|2C|2F|40)/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

function isJSON(encoding) {
  return typeof encoding?.contentType === "string" && /^application\/(.+\+)?json\b/.test(encoding.contentType);
}

// formText is the body for one example value; where names the example in errors.
function formText(value, encodings, where) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`${where}: a form example must be an object of fields`);
  }
  const fields = [];
  for (const [name, v] of Object.entries(value)) {
    const enc = encodings?.[name];
    let text;
    if (isJSON(enc)) {
      text = JSON.stringify(v);
    } else if (Array.isArray(v)) {
      // One field, comma-separated: the only list form the server takes.
      if (enc?.style !== "form" || enc?.explode !== false) {
        throw new Error(`${where}: ${name} is a list without encoding {style: form, explode: false}`);
      }
      if (v.some((x) => x === null || typeof x === "object" || String(x).includes(","))) {
        throw new Error(`${where}: ${name} holds an element that cannot be sent comma-separated`);
      }
      text = v.join(",");
    } else if (v !== null && typeof v === "object") {
      throw new Error(`${where}: ${name} is an object without encoding.contentType application/json`);
    } else if (v === null || v === undefined) {
      throw new Error(`${where}: ${name} is null: a form field has no null`);
    } else {
      text = String(v);
    }
    fields.push(`${encode(name)}=${encode(text)}`);
  }
  return fields.join("&");
}

module.exports = function formSamples() {
  return {
    id: "forms",
    decorators: {
      oas3: {
        "examples-as-sent": () => ({
          Operation: {
            leave(op, ctx) {
              let body = op.requestBody;
              if (body?.$ref) body = ctx.resolve(body).node;
              const media = body?.content?.[FORM];
              if (!media) return;
              const where = `${op.operationId ?? ctx.location.pointer}`;
              if (!media.examples && media.example === undefined) {
                // Redoc would generate one from the schema, serialized its way.
                throw new Error(`${where}: a form request body without examples: the page would show a sample the server refuses`);
              }
              if (media.example !== undefined) {
                media.example = formText(media.example, media.encoding, `${where} example`);
              }
              for (const [name, ex] of Object.entries(media.examples ?? {})) {
                const example = ex?.$ref ? ctx.resolve(ex).node : ex;
                if (example?.value === undefined) {
                  throw new Error(`${where}/${name}: a form example without value`);
                }
                // A copy: an example reached through $ref may be shared.
                media.examples[name] = { ...example, value: formText(example.value, media.encoding, `${where}/${name}`) };
              }
            },
          },
        }),
      },
    },
  };
};
