/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export type Item = {
    id: string;
    owner: string;
    /**
     * The id of the folder holding the item; null at the root.
     */
    ownerFolder: string | null;
    title: string;
    type: string;
    tags?: Array<string>;
    description?: string;
    /**
     * Creation time, milliseconds since the epoch.
     */
    created?: number;
    /**
     * Last modification time, milliseconds since the epoch.
     */
    modified?: number;
};

