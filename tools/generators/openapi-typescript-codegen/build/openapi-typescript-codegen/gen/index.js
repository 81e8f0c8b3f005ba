"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OrganizationSettingsService = exports.MemberCategoriesService = exports.ContentService = exports.AuthenticationService = exports.GenerateTokenForm = exports.Format = exports.FooterMailLink = exports.AccessNotice = exports.OpenAPI = exports.CancelError = exports.CancelablePromise = exports.ApiError = void 0;
/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
var ApiError_1 = require("./core/ApiError");
Object.defineProperty(exports, "ApiError", { enumerable: true, get: function () { return ApiError_1.ApiError; } });
var CancelablePromise_1 = require("./core/CancelablePromise");
Object.defineProperty(exports, "CancelablePromise", { enumerable: true, get: function () { return CancelablePromise_1.CancelablePromise; } });
Object.defineProperty(exports, "CancelError", { enumerable: true, get: function () { return CancelablePromise_1.CancelError; } });
var OpenAPI_1 = require("./core/OpenAPI");
Object.defineProperty(exports, "OpenAPI", { enumerable: true, get: function () { return OpenAPI_1.OpenAPI; } });
var AccessNotice_1 = require("./models/AccessNotice");
Object.defineProperty(exports, "AccessNotice", { enumerable: true, get: function () { return AccessNotice_1.AccessNotice; } });
var FooterMailLink_1 = require("./models/FooterMailLink");
Object.defineProperty(exports, "FooterMailLink", { enumerable: true, get: function () { return FooterMailLink_1.FooterMailLink; } });
var Format_1 = require("./models/Format");
Object.defineProperty(exports, "Format", { enumerable: true, get: function () { return Format_1.Format; } });
var GenerateTokenForm_1 = require("./models/GenerateTokenForm");
Object.defineProperty(exports, "GenerateTokenForm", { enumerable: true, get: function () { return GenerateTokenForm_1.GenerateTokenForm; } });
var AuthenticationService_1 = require("./services/AuthenticationService");
Object.defineProperty(exports, "AuthenticationService", { enumerable: true, get: function () { return AuthenticationService_1.AuthenticationService; } });
var ContentService_1 = require("./services/ContentService");
Object.defineProperty(exports, "ContentService", { enumerable: true, get: function () { return ContentService_1.ContentService; } });
var MemberCategoriesService_1 = require("./services/MemberCategoriesService");
Object.defineProperty(exports, "MemberCategoriesService", { enumerable: true, get: function () { return MemberCategoriesService_1.MemberCategoriesService; } });
var OrganizationSettingsService_1 = require("./services/OrganizationSettingsService");
Object.defineProperty(exports, "OrganizationSettingsService", { enumerable: true, get: function () { return OrganizationSettingsService_1.OrganizationSettingsService; } });
