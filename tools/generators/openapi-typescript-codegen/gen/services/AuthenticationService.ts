/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { GenerateTokenForm } from '../models/GenerateTokenForm';
import type { TokenResponse } from '../models/TokenResponse';
import type { CancelablePromise } from '../core/CancelablePromise';
import { OpenAPI } from '../core/OpenAPI';
import { request as __request } from '../core/request';
export class AuthenticationService {
    /**
     * Generate a token
     * Exchanges a member's user name and password for a token valid `expiration` minutes (at most 20,160, two
     * weeks). After 5 failed sign-ins for one user name, or 50 from one client address, within 15 minutes, every
     * attempt is refused, the right password included: code 429 "Too many invalid logon attempts. Try again
     * later.", with a detail saying when to try again. A success clears the user name's count. A known and an
     * unknown user name take the same time to refuse.
     *
     * @param formData
     * @returns TokenResponse The token, or the error envelope.
     * @throws ApiError
     */
    public static generateToken(
        formData: GenerateTokenForm,
    ): CancelablePromise<TokenResponse> {
        return __request(OpenAPI, {
            method: 'POST',
            url: '/generateToken',
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
}
