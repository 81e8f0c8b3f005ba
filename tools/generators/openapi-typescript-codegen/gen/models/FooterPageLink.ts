/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { FooterLinkTitle } from './FooterLinkTitle';
import type { HTTPURL } from './HTTPURL';
/**
 * A footer link to a page.
 */
export type FooterPageLink = {
    title: FooterLinkTitle;
    url: HTTPURL;
};

