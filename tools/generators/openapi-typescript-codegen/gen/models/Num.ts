/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * Entries per page; 0 answers only the total, with `nextStart` -1.
 */
export type Num = number;
