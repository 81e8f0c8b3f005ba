/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * A CSS named color (such as `grey` or `navy`, case-insensitive) or `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`.
 */
export type Color = string;
