/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * Item ids, comma-separated (`a,b`), or a JSON array of strings. Spaces are trimmed and empty entries
 * ignored; a repeated id is reported once per occurrence. At least one, at most 1,000 (`x-max-ids`).
 *
 */
export type ItemIDList = Array<string>;
