/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * `json` (the default when absent) or `pjson` (the same JSON, indented).
 */
export enum Format {
    JSON = 'json',
    PJSON = 'pjson',
}
