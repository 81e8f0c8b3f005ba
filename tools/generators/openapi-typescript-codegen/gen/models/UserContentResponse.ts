/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
import type { Folder } from './Folder';
import type { Item } from './Item';
export type UserContentResponse = {
    username?: string;
    /**
     * Items in the folder listed.
     */
    total?: number;
    start?: number;
    num?: number;
    /**
     * Start of the next page; -1 on the last page.
     */
    nextStart?: number;
    /**
     * The folder listed (a Folder); null for the root.
     */
    currentFolder?: {
        id: string;
        title: string;
        username: string;
        created?: number;
    } | null;
    items?: Array<Item>;
    /**
     * The user's folders (listed at the root only; empty inside a folder).
     */
    folders?: Array<Folder>;
    error?: ErrorBody;
};

