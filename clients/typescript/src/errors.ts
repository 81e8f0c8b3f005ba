// The portal answers errors with HTTP 200 and {"error":{code,messageCode?,message,details}}, so an HTTP client
// sees them as successes: these helpers find the envelope in the body and turn it into an exception.

import type { components } from "./schema.js";

/** The body of the error envelope. */
export type ErrorBody = components["schemas"]["ErrorBody"];

/** An error the portal answered, from the `{"error":{...}}` envelope. */
export class PortalError extends Error {
  override readonly name = "PortalError";
  /** HTTP-like code from the envelope: 400, 403, 404, 413, 498, 499, 500. */
  readonly code: number;
  /** Machine-readable code such as `ORG_1132` or `GWM_0003`, when the portal gives one. */
  readonly messageCode: string | undefined;
  /** One entry per problem, such as `informationalBanner.bgColor: ...`. */
  readonly details: string[];
  /** The HTTP status of the answer: 200 for almost every portal error. */
  readonly status: number;

  constructor(body: ErrorBody, status: number) {
    super(body.message);
    this.code = body.code;
    this.messageCode = body.messageCode;
    this.details = body.details ?? [];
    this.status = status;
  }

  /** 498 (invalid or expired token) or 499 (token required): the caller should sign in again. */
  get isAuthError(): boolean {
    return this.code === 498 || this.code === 499;
  }
}

/** The envelope's error body when `body` is an error envelope, else undefined. */
export function errorEnvelope(body: unknown): ErrorBody | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const e = (body as { error: unknown }).error;
  if (typeof e !== "object" || e === null) return undefined;
  const { code, message, messageCode, details } = e as Record<string, unknown>;
  if (typeof code !== "number" || typeof message !== "string") return undefined;
  return {
    code,
    message,
    ...(typeof messageCode === "string" ? { messageCode } : {}),
    details: Array.isArray(details) ? details.map(String) : [],
  };
}

/** Throws a {@link PortalError} when `body` is an error envelope. */
export function throwIfPortalError(body: unknown, status = 200): void {
  const e = errorEnvelope(body);
  if (e) throw new PortalError(e, status);
}

/** A success answer: the response type without its `error` member. */
export type Success<T> = T extends unknown ? Omit<T, "error"> : never;

/**
 * The data of an openapi-fetch result, or a thrown {@link PortalError}: for the envelope in an HTTP-200 answer,
 * for the envelope in a transport error (404, 413), and for any other non-2xx answer (its status as the code).
 */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(
  result: R,
): Success<NonNullable<R["data"]>> {
  const { response } = result;
  if (!response.ok) {
    throwIfPortalError(result.error, response.status);
    throw new PortalError(
      { code: response.status, message: `HTTP ${response.status} ${response.statusText}`.trim(), details: [] },
      response.status,
    );
  }
  throwIfPortalError(result.data, response.status);
  if (result.data === undefined) {
    throw new PortalError({ code: 500, message: "The portal answered with an empty body.", details: [] }, response.status);
  }
  return result.data as Success<NonNullable<R["data"]>>;
}
