/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
import type { ItemIDList } from './ItemIDList';
export type MoveItemsForm = {
    items: ItemIDList;
    /**
     * The destination folder's id; `/` or empty for the root folder.
     */
    folder?: string;
    'f'?: Format;
};

