/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export type Member = {
    username: string;
    fullName?: string;
    orgId: string;
    /**
     * `org_admin`, `org_publisher`, `org_user` or a custom role id.
     */
    role: string;
    categories: Array<string>;
};

