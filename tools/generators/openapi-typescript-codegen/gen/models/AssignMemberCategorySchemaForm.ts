/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
import type { MemberCategorySchema } from './MemberCategorySchema';
export type AssignMemberCategorySchemaForm = {
    /**
     * The schema, `{"memberCategorySchema":[category...]}`.
     */
    memberCategorySchema: MemberCategorySchema;
    'f'?: Format;
};

