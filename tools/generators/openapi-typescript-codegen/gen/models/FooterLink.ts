/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { FooterMailLink } from './FooterMailLink';
import type { FooterPageLink } from './FooterPageLink';
/**
 * A footer link, either to a page (`url`) or to a mail address for a contact or abuse report (`email` and `type`).
 */
export type FooterLink = (FooterPageLink | FooterMailLink);

