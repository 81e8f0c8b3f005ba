/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
import type { ItemResult } from './ItemResult';
/**
 * One result per requested id in request order, or the error envelope.
 */
export type ItemResultsResponse = {
    results?: Array<ItemResult>;
    error?: ErrorBody;
};

