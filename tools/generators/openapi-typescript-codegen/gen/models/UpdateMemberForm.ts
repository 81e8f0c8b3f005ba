/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { CategoryPaths } from './CategoryPaths';
import type { Format } from './Format';
export type UpdateMemberForm = {
    categories: CategoryPaths;
    'f'?: Format;
};

