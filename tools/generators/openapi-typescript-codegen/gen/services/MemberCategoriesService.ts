/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { AssignMemberCategorySchemaForm } from '../models/AssignMemberCategorySchemaForm';
import type { Format } from '../models/Format';
import type { FormatForm } from '../models/FormatForm';
import type { MemberCategorySchemaResponse } from '../models/MemberCategorySchemaResponse';
import type { MemberListResponse } from '../models/MemberListResponse';
import type { MemberResponse } from '../models/MemberResponse';
import type { MemberUpdateResponse } from '../models/MemberUpdateResponse';
import type { SuccessResponse } from '../models/SuccessResponse';
import type { UpdateMemberForm } from '../models/UpdateMemberForm';
import type { CancelablePromise } from '../core/CancelablePromise';
import { OpenAPI } from '../core/OpenAPI';
import { request as __request } from '../core/request';
export class MemberCategoriesService {
    /**
     * Assign the member category schema
     * Replaces the organization's member category schema: a tree of categories and sub-categories that can be
     * assigned to members (at most 20 per member) and used to filter them.
     *
     * Limits: at most 3 levels (top-level categories are level 1) and 200 categories in all; the schema may
     * not be empty. Breaking a limit answers 400 `ORG_1132` "Unable to assign member category schema." with a
     * detail naming the rule and the figure; an absent, null or empty array (`{}`, `{"memberCategorySchema":null}`,
     * `{"memberCategorySchema":[]}`) answers ORG_1132 too. The tree limits are judged first.
     *
     * A title is a non-empty string without `/` or control characters, stored trimmed and in Unicode NFC.
     * Sibling titles are unique after trimming, NFKC, case folding and dropping invisible characters (so "Café"
     * in NFC and NFD, "Planning" and "Planning ", "USA" and fullwidth "ＵＳＡ" are the same title); breaking a
     * title rule answers 400 naming the node's path. Categories held by members are kept in the schema's own
     * spelling; those that no longer exist in the new schema are removed from them.
     *
     * Who may call it: default administrators (`org_admin`) and members whose role holds
     * `portal:admin:updateMemberCategorySchema`.
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param formData
     * @returns SuccessResponse Success, or the error envelope.
     * @throws ApiError
     */
    public static assignMemberCategorySchema(
        portalId: string,
        formData: AssignMemberCategorySchemaForm,
    ): CancelablePromise<SuccessResponse> {
        return __request(OpenAPI, {
            method: 'POST',
            url: '/portals/{portalId}/assignMemberCategorySchema',
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
     * Read the member category schema
     * The organization's member category schema; an empty array when none is assigned. Any member of the organization may read it.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param f Response format.
     * @returns MemberCategorySchemaResponse The schema, or the error envelope.
     * @throws ApiError
     */
    public static getMemberCategorySchema(
        portalId: string,
        f?: Format,
    ): CancelablePromise<MemberCategorySchemaResponse> {
        return __request(OpenAPI, {
            method: 'GET',
            url: '/portals/{portalId}/memberCategorySchema',
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
    /**
     * Delete the member category schema
     * Removes the schema and every category held by members. Same callers as assignMemberCategorySchema.
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param formData
     * @returns SuccessResponse Success, or the error envelope.
     * @throws ApiError
     */
    public static deleteMemberCategorySchema(
        portalId: string,
        formData?: FormatForm,
    ): CancelablePromise<SuccessResponse> {
        return __request(OpenAPI, {
            method: 'POST',
            url: '/portals/{portalId}/deleteMemberCategorySchema',
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
     * List members, filtered by category
     * The organization's members, paged. `categories` keeps members holding any of the given category paths or
     * one of their descendants. Any member of the organization may list.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param portalId The organization's id, or `self` for the caller's organization.
     * @param categories Category paths, comma-separated, such as `/Office Location/USA`, or a JSON array of strings (`["/Cities/Portland, Maine"]`), which a path holding a comma needs.
     * @param start 1-based index of the first entry of the page.
     * @param num Entries per page; 0 answers only the total, with `nextStart` -1.
     * @param f Response format.
     * @returns MemberListResponse A page of members, or the error envelope.
     * @throws ApiError
     */
    public static listMembers(
        portalId: string,
        categories?: Array<string>,
        start: number = 1,
        num: number = 10,
        f?: Format,
    ): CancelablePromise<MemberListResponse> {
        return __request(OpenAPI, {
            method: 'GET',
            url: '/portals/{portalId}/users',
            path: {
                'portalId': portalId,
            },
            query: {
                'categories': categories,
                'start': start,
                'num': num,
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
    /**
     * Read a member
     * A member of the caller's organization, with the category paths assigned to it.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param userName The user's name.
     * @param f Response format.
     * @returns MemberResponse The member, or the error envelope.
     * @throws ApiError
     */
    public static getMember(
        userName: string,
        f?: Format,
    ): CancelablePromise<MemberResponse> {
        return __request(OpenAPI, {
            method: 'GET',
            url: '/community/users/{userName}',
            path: {
                'userName': userName,
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
    /**
     * Set a member's categories
     * Replaces the member's categories with `categories`, category paths each present in the schema, at
     * most 20, comma-separated or as a JSON array. Who may call it: `org_admin`, or a role holding `portal:admin:updateUsers`.
     *
     * @param userName The user's name.
     * @param formData
     * @returns MemberUpdateResponse Success, or the error envelope.
     * @throws ApiError
     */
    public static updateMember(
        userName: string,
        formData: UpdateMemberForm,
    ): CancelablePromise<MemberUpdateResponse> {
        return __request(OpenAPI, {
            method: 'POST',
            url: '/community/users/{userName}/update',
            path: {
                'userName': userName,
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
}
