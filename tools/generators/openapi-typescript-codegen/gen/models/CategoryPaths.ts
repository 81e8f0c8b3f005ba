/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * The member's category paths, each present in the schema; at most 20 (`x-max-per-member`). Sent
 * comma-separated (`/A/B,/C`), as the portal's JavaScript client joins arrays, or as a JSON array of
 * strings (`["/A/B","/C"]`), which a path holding a comma needs. Empty clears the member's categories.
 *
 */
export type CategoryPaths = Array<string>;
