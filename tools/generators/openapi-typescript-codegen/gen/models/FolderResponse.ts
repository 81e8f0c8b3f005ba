/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorBody } from './ErrorBody';
import type { Folder } from './Folder';
export type FolderResponse = {
    success?: boolean;
    folder?: Folder;
    error?: ErrorBody;
};

