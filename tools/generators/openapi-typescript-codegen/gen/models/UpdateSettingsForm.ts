/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { AccessNotice } from './AccessNotice';
import type { Format } from './Format';
import type { InformationalBanner } from './InformationalBanner';
import type { PortalConfigProperties } from './PortalConfigProperties';
export type UpdateSettingsForm = {
    /**
     * The notice shown to anonymous users. Replaces the current one.
     */
    anonymousAccessNotice?: AccessNotice;
    /**
     * The notice shown to signed-in users. Replaces the current one.
     */
    authenticatedAccessNotice?: AccessNotice;
    /**
     * The banner at the top of the organization's pages. Replaces the current one.
     */
    informationalBanner?: InformationalBanner;
    /**
     * Advanced portal configuration properties, merged key by key into the current ones; a key sent as
     * `null` is removed. Self-hosted deployments at 11.0 and later only. The operation's reference
     * documentation calls it the `portal` parameter; it is sent under this name.
     *
     */
    portalConfigProperties?: PortalConfigProperties;
    /**
     * With `clearEmptyFields=true`, a notice or the banner sent as `{}` is cleared instead of stored empty.
     * `portalConfigProperties` is merged key by key whatever this value.
     *
     */
    clearEmptyFields?: boolean;
    'f'?: Format;
};

