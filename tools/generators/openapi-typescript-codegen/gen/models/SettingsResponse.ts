/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { AccessNotice } from './AccessNotice';
import type { ErrorBody } from './ErrorBody';
import type { InformationalBanner } from './InformationalBanner';
import type { PortalConfigProperties } from './PortalConfigProperties';
export type SettingsResponse = {
    anonymousAccessNotice?: AccessNotice;
    authenticatedAccessNotice?: AccessNotice;
    informationalBanner?: InformationalBanner;
    portalConfigProperties?: PortalConfigProperties;
    error?: ErrorBody;
};

