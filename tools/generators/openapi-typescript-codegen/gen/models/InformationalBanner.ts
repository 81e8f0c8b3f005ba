/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Color } from './Color';
/**
 * A banner shown at the top of the organization's pages, for example a read-only status or a classification
 * level. An enabled banner needs a non-empty `text`, `bgColor` and `fontColor` (`x-required-when-enabled`).
 * The two colors should contrast; a low contrast is accepted.
 *
 */
export type InformationalBanner = {
    text?: string;
    bgColor?: Color;
    fontColor?: Color;
    enabled?: boolean;
};

