/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
/**
 * `{"success":true}`, or the error envelope.
 */
export type SuccessResponse = {
    success?: boolean;
    error?: ErrorBody;
};

