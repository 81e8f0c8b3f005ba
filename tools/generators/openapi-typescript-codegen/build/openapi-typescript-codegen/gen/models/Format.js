"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Format = void 0;
/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * `json` (the default when absent) or `pjson` (the same JSON, indented).
 */
var Format;
(function (Format) {
    Format["JSON"] = "json";
    Format["PJSON"] = "pjson";
})(Format || (exports.Format = Format = {}));
