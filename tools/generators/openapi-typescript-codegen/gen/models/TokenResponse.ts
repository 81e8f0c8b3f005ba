/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
export type TokenResponse = {
    token?: string;
    /**
     * Expiry, milliseconds since the epoch.
     */
    expires?: number;
    /**
     * Whether the token may be used over HTTPS only.
     */
    ssl?: boolean;
    error?: ErrorBody;
};

