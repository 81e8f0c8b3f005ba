/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { CategoryNode } from './CategoryNode';
/**
 * The member category schema: a tree of at most 3 levels (`x-max-depth`, top-level categories are level 1)
 * and 200 categories in all (`x-max-nodes`), not empty (`x-min-nodes`). These limits are checked by
 * `assignMemberCategorySchema`, which answers ORG_1132 when one is broken, rather than by this schema (a
 * `minItems` here would turn an empty schema's ORG_1132 into a plain 400). `getMemberCategorySchema` answers
 * the same document, with an empty array when no schema is assigned.
 *
 */
export type MemberCategorySchema = {
    memberCategorySchema: Array<CategoryNode>;
};

