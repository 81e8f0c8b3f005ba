/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
import type { Member } from './Member';
export type MemberListResponse = {
    total?: number;
    start?: number;
    num?: number;
    /**
     * Start of the next page; -1 on the last page.
     */
    nextStart?: number;
    users?: Array<Member>;
    error?: ErrorBody;
};

