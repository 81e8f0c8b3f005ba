/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
export type NewItemResponse = {
    success?: boolean;
    id?: string;
    /**
     * The folder holding the new item; null at the root.
     */
    folder?: string | null;
    error?: ErrorBody;
};

