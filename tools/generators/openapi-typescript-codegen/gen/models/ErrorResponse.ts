/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
/**
 * The error envelope alone.
 */
export type ErrorResponse = {
    error: ErrorBody;
};

