/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { FooterLink } from './FooterLink';
/**
 * Advanced portal configuration properties of a self-hosted deployment (11.0 and later). They replace edits
 * to the former editable portal configuration file, whose properties are not migrated on upgrade. What is
 * stored stays bounded: at most 200 keys (`x-max-stored-keys`) and 64 KiB of JSON in all
 * (`x-max-stored-bytes`); an update beyond either answers 400 naming the limit.
 *
 * Further properties exist whose names are not part of this contract; they are accepted as additional
 * properties holding a JSON scalar or array, and returned by the settings read:
 * visibility of the Organization page to all members (boolean); accessibility of the dashboards app
 * (boolean); applications shown in the app launcher (titles, comma-separated); accessibility of the scene
 * viewer (boolean); accessibility of the web app builder (boolean); proxy used for configured utility
 * services (for a disconnected environment); installed flag of the Web Editor setup (boolean, 11.3);
 * installed flags of the topographic production and of the data pipelines web apps (boolean, 11.5).
 *
 */
export type PortalConfigProperties = {
    /**
     * Service that updates or sets the extent of a web map item. A tiled map service in WGS84 (WKID 4326).
     */
    extentService?: string | null;
    /**
     * Links shown in every page footer (terms of use, privacy, contact, report abuse). Default empty.
     */
    footerLinks?: Array<FooterLink> | null;
    /**
     * Basemap for OGC WMS services that do not support Web Mercator.
     */
    gcsBasemapService?: string | null;
    /**
     * Federated server domains that the classic map viewer may switch from HTTP to HTTPS.
     */
    httpsDomains?: Array<string> | null;
    /**
     * Expiration, in minutes, of tokens created when a user chooses Keep me signed in.
     */
    longTokenExpiration?: number | null;
    /**
     * Expiration, in minutes, of tokens created at sign-in (longTokenExpiration applies with Keep me signed in).
     */
    tokenExpiration?: number | null;
    /**
     * Enables searching for hosted-platform layers in the classic map viewer and, from 11.2, in the new map
     * viewer too. When false the option is disabled.
     *
     */
    searchHostedEnabled?: boolean | null;
    /**
     * URL of the survey website; may point to an installed site, with ports or reverse-proxy entry points.
     */
    surveyUrl?: string | null;
    /**
     * Host name of the hosted environment used by the portal configuration.
     */
    configurePortalHostedEnv?: string | null;
    /**
     * Whether the hosted-environment tab shows on the Organization Settings page. False for a disconnected environment.
     */
    portalHostedConfigEnabled?: boolean | null;
    /**
     * Whether the Configure Living Atlas Content section shows on that tab. False for a disconnected environment.
     */
    portalLivingAtlasConfigEnabled?: boolean | null;
    /**
     * URL of the streaming-analytics (Velocity) application; may point to an installed deployment.
     */
    iotViewerUrl?: string | null;
    /**
     * When true, only administrators see the Organization page.
     */
    restrictOrganizationPageToAdmin?: boolean | null;
    /**
     * Titles of the applications shown in the app launcher, comma-separated.
     */
    showInAppLauncher?: string | null;
    /**
     * Whether the scene viewer is accessible.
     */
    sceneViewerEnabled?: boolean | null;
    /**
     * Whether the web app builder is accessible.
     */
    webAppBuilderEnabled?: boolean | null;
};

