/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ItemError } from './ItemError';
export type ItemResult = {
    itemId: string;
    success: boolean;
    error?: ItemError;
};

