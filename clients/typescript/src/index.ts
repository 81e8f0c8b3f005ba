export { createPortalClient } from "./client.js";
export type { PortalClient, PortalClientOptions, PathOf, InitOf, DataOf } from "./client.js";
export { PortalError, errorEnvelope, throwIfPortalError, unwrap } from "./errors.js";
export type { ErrorBody, Success } from "./errors.js";
export { encodeForm, formBodySerializer } from "./form.js";
export type { FormEncoding } from "./form.js";
export { operations } from "./operations.gen.js";
export type { OperationId } from "./operations.gen.js";
export type { paths, components, operations as operationTypes } from "./schema.js";
