/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
export type ItemResponse = {
    id?: string;
    owner?: string;
    ownerFolder?: string | null;
    title?: string;
    type?: string;
    tags?: Array<string>;
    description?: string;
    created?: number;
    modified?: number;
    error?: ErrorBody;
};

