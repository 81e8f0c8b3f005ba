/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
export type MemberResponse = {
    username?: string;
    fullName?: string;
    orgId?: string;
    role?: string;
    categories?: Array<string>;
    error?: ErrorBody;
};

