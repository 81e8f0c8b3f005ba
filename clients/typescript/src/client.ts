import createClient, { type Client, type HeadersOptions, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";
import { formBodySerializer, type FormEncoding } from "./form.js";
import { unwrap, type Success } from "./errors.js";
import { operations } from "./operations.gen.js";

type Method = "get" | "post";
/** The spec's paths that have `M`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
/** The request options of `M path`: path and query parameters, and the form body. */
export type InitOf<P extends PathOf<M>, M extends Method> = NonNullable<MaybeOptionalInit<paths[P], M>>;
/** The success answer of `M path`. */
export type DataOf<P extends PathOf<M>, M extends Method> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer T } } };
}
  ? Success<T>
  : never;

export interface PortalClientOptions {
  /** A token from generateToken, or a static one; sent as `X-Esri-Authorization: Bearer <token>`. */
  token?: string;
  /** Headers sent with every request. */
  headers?: HeadersOptions;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface PortalClient {
  /**
   * The openapi-fetch client, with the portal's form encoding applied to POST bodies and the token sent. Portal
   * errors stay in `data.error`, as the portal answers them with HTTP 200: pass a result to `unwrap` to throw.
   */
  readonly raw: Client<paths>;
  /** Calls a read operation; resolves with its answer or rejects with a `PortalError`. */
  get<P extends PathOf<"get">>(path: P, init: InitOf<P, "get">): Promise<DataOf<P, "get">>;
  /** Calls a write operation with a form body; resolves with its answer or rejects with a `PortalError`. */
  post<P extends PathOf<"post">>(path: P, init: InitOf<P, "post">): Promise<DataOf<P, "post">>;
}

// The form encoding of each POST path, from the spec's request-body `encoding`.
const encodingByPath = new Map<string, FormEncoding>(
  Object.values(operations)
    .filter((o) => o.method === "post")
    .map((o) => [o.path, o]),
);

/**
 * A client of the portal REST API rooted at `baseUrl` (`https://host[/context]/sharing/rest`).
 *
 * ```ts
 * const portal = createPortalClient("https://portal.example.org/portal/sharing/rest", { token });
 * const { results } = await portal.post("/content/users/{userName}/moveItems", {
 *   params: { path: { userName: "jsmith" } },
 *   body: { items: ["93b5...", "2d6f..."], folder: "1a9a..." },
 * });
 * ```
 */
export function createPortalClient(baseUrl: string, options: PortalClientOptions = {}): PortalClient {
  const client = createClient<paths>({
    baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    // Query arrays (listMembers' categories) are comma-separated, like the portal's list parameters.
    querySerializer: { array: { style: "form", explode: false } },
    // A fallback for calls that bypass POST below (client.request): encoding derived from the values.
    bodySerializer: formBodySerializer(),
  });
  if (options.token !== undefined) {
    const auth = `Bearer ${options.token}`;
    const tokenHeader: Middleware = {
      onRequest({ request }) {
        request.headers.set("X-Esri-Authorization", auth);
        return request;
      },
    };
    client.use(tokenHeader);
  }

  // POST with the operation's own encoding and the form content type (openapi-fetch would say JSON).
  const post = ((path: string, init?: Record<string, unknown>) =>
    client.POST(path as PathOf<"post">, {
      ...init,
      bodySerializer: formBodySerializer(encodingByPath.get(path)),
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...(init?.headers as object | undefined) },
    } as never)) as unknown as Client<paths>["POST"];
  const raw: Client<paths> = { ...client, POST: post };

  return {
    raw,
    async get(path, init) {
      return unwrap(await client.GET(path, init as never)) as never;
    },
    async post(path, init) {
      return unwrap(await post(path, init as never)) as never;
    },
  };
}
