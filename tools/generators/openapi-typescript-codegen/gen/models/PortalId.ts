/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * The organization's id, or `self` for the caller's organization.
 */
export type PortalId = string;
