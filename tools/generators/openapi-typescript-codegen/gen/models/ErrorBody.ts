/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export type ErrorBody = {
    /**
     * HTTP-like status: 400, 403, 404, 413, 429, 498, 499, 500.
     */
    code: number;
    /**
     * Machine-readable code, such as `ORG_1132` or `GWM_0003`.
     */
    messageCode?: string;
    message: string;
    details: Array<string>;
};

