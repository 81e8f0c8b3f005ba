/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * Not blank (a character other than white space).
 */
export type FooterLinkTitle = string;
