/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export type ItemError = {
    code: number;
    messageCode?: string;
    message: string;
};

