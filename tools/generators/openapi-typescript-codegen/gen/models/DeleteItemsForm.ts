/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
import type { ItemIDList } from './ItemIDList';
export type DeleteItemsForm = {
    items: ItemIDList;
    'f'?: Format;
};

