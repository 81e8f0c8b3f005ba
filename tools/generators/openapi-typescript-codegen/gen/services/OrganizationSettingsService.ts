/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from '../models/Format';
import type { SettingsResponse } from '../models/SettingsResponse';
import type { SuccessResponse } from '../models/SuccessResponse';
import type { UpdateSettingsForm } from '../models/UpdateSettingsForm';
import type { CancelablePromise } from '../core/CancelablePromise';
import { OpenAPI } from '../core/OpenAPI';
import { request as __request } from '../core/request';
export class OrganizationSettingsService {
    /**
     * Update organization settings
     * Sets the access notices shown to anonymous and to authenticated users (each a terms-of-service prompt
     * users must answer before they use the portal site), the informational banner shown at the top of the
     * organization's pages, and, on self-hosted deployments at 11.0 and later, the advanced portal
     * configuration properties. These properties replace edits to the former editable portal configuration
     * file; that file's properties are not migrated on upgrade and must be applied through this operation.
     *
     * Each object given replaces that setting wholly; settings not given stay as they are. With
     * `clearEmptyFields=true`, a notice or the banner sent as `{}` is cleared instead of stored empty.
     * `portalConfigProperties` is merged key by key; a key sent as `null` is removed. Nothing is stored when
     * any part of the request is invalid.
     *
     * Who may call it: the organization's default administrators (`org_admin`) and members whose role holds
     * `portal:admin:manageSecurity` (security and infrastructure).
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param formData
     * @returns SuccessResponse Success, or the error envelope.
     * @throws ApiError
     */
    public static updateSettings(
        portalId: string,
        formData: UpdateSettingsForm,
    ): CancelablePromise<SuccessResponse> {
        return __request(OpenAPI, {
            method: 'POST',
            url: '/portals/{portalId}/settings/update',
            path: {
                'portalId': portalId,
            },
            formData: formData,
            mediaType: 'application/x-www-form-urlencoded',
            errors: {
                404: `A transport failure, with the error envelope: no such path or method, or an operation the portal's version
                or deployment does not have (\`x-introduced-in\`, \`x-deployments\`).
                `,
                413: `A transport failure, with the error envelope. The request body is over 1 MiB.`,
            },
        });
    }
    /**
     * Read organization settings
     * The access notices, the informational banner and the advanced portal configuration properties. A
     * setting never set is absent. Anonymous callers may read it by the organization's id (`self` needs a
     * token), without `portalConfigProperties`; members of the organization see everything.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param f Response format.
     * @returns SettingsResponse The settings, or the error envelope.
     * @throws ApiError
     */
    public static getSettings(
        portalId: string,
        f?: Format,
    ): CancelablePromise<SettingsResponse> {
        return __request(OpenAPI, {
            method: 'GET',
            url: '/portals/{portalId}/settings',
            path: {
                'portalId': portalId,
            },
            query: {
                'f': f,
            },
            errors: {
                404: `A transport failure, with the error envelope: no such path or method, or an operation the portal's version
                or deployment does not have (\`x-introduced-in\`, \`x-deployments\`).
                `,
                413: `A transport failure, with the error envelope. The request body is over 1 MiB.`,
            },
        });
    }
}
