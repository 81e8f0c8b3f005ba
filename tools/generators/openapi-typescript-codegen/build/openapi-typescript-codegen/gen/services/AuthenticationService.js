"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AuthenticationService = void 0;
const OpenAPI_1 = require("../core/OpenAPI");
const request_1 = require("../core/request");
class AuthenticationService {
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
    static generateToken(formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
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
exports.AuthenticationService = AuthenticationService;
