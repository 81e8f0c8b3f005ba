/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export type Folder = {
    id: string;
    title: string;
    username: string;
    created?: number;
};

