/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
export { ApiError } from './core/ApiError';
export { CancelablePromise, CancelError } from './core/CancelablePromise';
export { OpenAPI } from './core/OpenAPI';
export type { OpenAPIConfig } from './core/OpenAPI';

export { AccessNotice } from './models/AccessNotice';
export type { AddItemForm } from './models/AddItemForm';
export type { AssignMemberCategorySchemaForm } from './models/AssignMemberCategorySchemaForm';
export type { CategoryNode } from './models/CategoryNode';
export type { CategoryPaths } from './models/CategoryPaths';
export type { Color } from './models/Color';
export type { CreateFolderForm } from './models/CreateFolderForm';
export type { DeleteItemsForm } from './models/DeleteItemsForm';
export type { ErrorBody } from './models/ErrorBody';
export type { ErrorResponse } from './models/ErrorResponse';
export type { F } from './models/F';
export type { Folder } from './models/Folder';
export type { FolderId } from './models/FolderId';
export type { FolderResponse } from './models/FolderResponse';
export type { FooterLink } from './models/FooterLink';
export type { FooterLinkTitle } from './models/FooterLinkTitle';
export { FooterMailLink } from './models/FooterMailLink';
export type { FooterPageLink } from './models/FooterPageLink';
export { Format } from './models/Format';
export type { FormatForm } from './models/FormatForm';
export { GenerateTokenForm } from './models/GenerateTokenForm';
export type { HTTPURL } from './models/HTTPURL';
export type { InformationalBanner } from './models/InformationalBanner';
export type { Item } from './models/Item';
export type { ItemError } from './models/ItemError';
export type { ItemIDList } from './models/ItemIDList';
export type { ItemResponse } from './models/ItemResponse';
export type { ItemResult } from './models/ItemResult';
export type { ItemResultsResponse } from './models/ItemResultsResponse';
export type { Member } from './models/Member';
export type { MemberCategorySchema } from './models/MemberCategorySchema';
export type { MemberCategorySchemaResponse } from './models/MemberCategorySchemaResponse';
export type { MemberListResponse } from './models/MemberListResponse';
export type { MemberResponse } from './models/MemberResponse';
export type { MemberUpdateResponse } from './models/MemberUpdateResponse';
export type { MoveItemsForm } from './models/MoveItemsForm';
export type { NewItemResponse } from './models/NewItemResponse';
export type { Num } from './models/Num';
export type { PortalConfigProperties } from './models/PortalConfigProperties';
export type { PortalId } from './models/PortalId';
export type { SettingsResponse } from './models/SettingsResponse';
export type { Start } from './models/Start';
export type { SuccessResponse } from './models/SuccessResponse';
export type { TokenResponse } from './models/TokenResponse';
export type { UpdateMemberForm } from './models/UpdateMemberForm';
export type { UpdateSettingsForm } from './models/UpdateSettingsForm';
export type { UserContentResponse } from './models/UserContentResponse';
export type { UserName } from './models/UserName';

export { AuthenticationService } from './services/AuthenticationService';
export { ContentService } from './services/ContentService';
export { MemberCategoriesService } from './services/MemberCategoriesService';
export { OrganizationSettingsService } from './services/OrganizationSettingsService';
