/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
export type MemberUpdateResponse = {
    success?: boolean;
    username?: string;
    error?: ErrorBody;
};

