/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
export type AddItemForm = {
    title: string;
    type: string;
    /**
     * Tags, comma-separated.
     */
    tags?: string;
    description?: string;
    'f'?: Format;
};

