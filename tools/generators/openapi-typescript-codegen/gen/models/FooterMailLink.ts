/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { FooterLinkTitle } from './FooterLinkTitle';
/**
 * A footer link to a mail address, for a contact or an abuse report.
 */
export type FooterMailLink = {
    title: FooterLinkTitle;
    email: string;
    type: FooterMailLink.type;
};
export namespace FooterMailLink {
    export enum type {
        CONTACT_US = 'contactUs',
        REPORT_ABUSE = 'reportAbuse',
    }
}

