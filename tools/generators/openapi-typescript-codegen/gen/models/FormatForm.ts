/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
export type FormatForm = {
    'f'?: Format;
};

