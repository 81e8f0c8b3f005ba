"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ContentService = void 0;
const OpenAPI_1 = require("../core/OpenAPI");
const request_1 = require("../core/request");
class ContentService {
    /**
     * Move items to a folder
     * Moves a batch of the user's items to `folder` (a folder id of the user, or `/` for the root). Each item is
     * judged and moved on its own, and reported in `results` in request order, so one request can return both
     * successes and failures: an item already in the destination gets `success:false` with error 500 "Item
     * already exists in target folder"; an unknown item, or one the user does not own, error 400 `CONT_0001`.
     * An unknown destination folder fails the whole request and moves nothing. At most 1,000 ids.
     *
     * Who may call it: the user, or in the same organization an `org_admin` or a role holding
     * `portal:admin:updateItems`.
     *
     * @param userName The user's name.
     * @param formData
     * @returns ItemResultsResponse One result per requested id, or the error envelope.
     * @throws ApiError
     */
    static moveItems(userName, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/moveItems',
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
    /**
     * List a user's root folder
     * The items at the user's root folder and the user's folders, paged. Items and folders are listed in the
     * order they were created. The user, or an `org_admin` of the same organization.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param userName The user's name.
     * @param start 1-based index of the first entry of the page.
     * @param num Entries per page; 0 answers only the total, with `nextStart` -1.
     * @param f Response format.
     * @returns UserContentResponse A page of content, or the error envelope.
     * @throws ApiError
     */
    static getUserContent(userName, start = 1, num = 10, f) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'GET',
            url: '/content/users/{userName}',
            path: {
                'userName': userName,
            },
            query: {
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
     * List a folder
     * The items in one of the user's folders, paged, in the order they were created. Same callers as getUserContent.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param userName The user's name.
     * @param folderId The folder's id.
     * @param start 1-based index of the first entry of the page.
     * @param num Entries per page; 0 answers only the total, with `nextStart` -1.
     * @param f Response format.
     * @returns UserContentResponse A page of content, or the error envelope.
     * @throws ApiError
     */
    static getFolderContent(userName, folderId, start = 1, num = 10, f) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'GET',
            url: '/content/users/{userName}/{folderId}',
            path: {
                'userName': userName,
                'folderId': folderId,
            },
            query: {
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
     * Read an item
     * One item. Its owner, or an `org_admin` of the owner's organization.
     *
     * Also answered to a POST with these parameters as a form body (`application/x-www-form-urlencoded`).
     *
     * @param itemId The item's id.
     * @param f Response format.
     * @returns ItemResponse The item, or the error envelope.
     * @throws ApiError
     */
    static getItem(itemId, f) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'GET',
            url: '/content/items/{itemId}',
            path: {
                'itemId': itemId,
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
     * Create a folder
     * Creates a folder for the user. Titles are unique per user, compared as sibling category titles are (trimmed, NFKC, case folding, invisible characters dropped). Same callers as moveItems.
     * @param userName The user's name.
     * @param formData
     * @returns FolderResponse The new folder, or the error envelope.
     * @throws ApiError
     */
    static createFolder(userName, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/createFolder',
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
    /**
     * Delete a folder
     * Deletes the folder and the items in it. Same callers as moveItems.
     * @param userName The user's name.
     * @param folderId The folder's id.
     * @param formData
     * @returns FolderResponse The deleted folder, or the error envelope.
     * @throws ApiError
     */
    static deleteFolder(userName, folderId, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/{folderId}/delete',
            path: {
                'userName': userName,
                'folderId': folderId,
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
     * Add an item at the root folder
     * Adds an item owned by the user at its root folder. Same callers as moveItems.
     * @param userName The user's name.
     * @param formData
     * @returns NewItemResponse The new item's id, or the error envelope.
     * @throws ApiError
     */
    static addItem(userName, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/addItem',
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
    /**
     * Add an item in a folder
     * Adds an item owned by the user in one of its folders. Same callers as moveItems.
     * @param userName The user's name.
     * @param folderId The folder's id.
     * @param formData
     * @returns NewItemResponse The new item's id, or the error envelope.
     * @throws ApiError
     */
    static addItemToFolder(userName, folderId, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/{folderId}/addItem',
            path: {
                'userName': userName,
                'folderId': folderId,
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
     * Delete items
     * Deletes a batch of the user's items, with one result per requested id in request order. Same callers as moveItems.
     * @param userName The user's name.
     * @param formData
     * @returns ItemResultsResponse One result per requested id, or the error envelope.
     * @throws ApiError
     */
    static deleteItems(userName, formData) {
        return (0, request_1.request)(OpenAPI_1.OpenAPI, {
            method: 'POST',
            url: '/content/users/{userName}/deleteItems',
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
exports.ContentService = ContentService;
