/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * A category and its optional sub-categories. Titles are stored trimmed and in NFC, hold no control
 * character, and are unique among siblings after trimming, NFKC, case folding and dropping invisible
 * characters (`x-unique-among-siblings`), as assignMemberCategorySchema judges after the tree limits.
 *
 */
export type CategoryNode = {
    title: string;
    categories?: Array<CategoryNode>;
};

