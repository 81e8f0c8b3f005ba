/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { ErrorResponse } from './ErrorResponse';
import type { MemberCategorySchema } from './MemberCategorySchema';
/**
 * The organization's member category schema (empty when none is assigned), or the error envelope. The
 * success branch is the document `assignMemberCategorySchema` takes in its `memberCategorySchema` field.
 *
 */
export type MemberCategorySchemaResponse = (MemberCategorySchema | ErrorResponse);

