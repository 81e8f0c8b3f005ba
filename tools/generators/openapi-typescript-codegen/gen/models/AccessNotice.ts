/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
/**
 * A terms-of-service prompt that users answer before they use the portal site. An enabled notice needs a
 * non-empty `title`, `text` and `buttons` (`x-required-when-enabled`).
 *
 */
export type AccessNotice = {
    title?: string;
    text?: string;
    /**
     * `acceptAndDecline`: the user accepts or declines; `okOnly`: the user sees only OK.
     */
    buttons?: AccessNotice.buttons;
    enabled?: boolean;
};
export namespace AccessNotice {
    /**
     * `acceptAndDecline`: the user accepts or declines; `okOnly`: the user sees only OK.
     */
    export enum buttons {
        ACCEPT_AND_DECLINE = 'acceptAndDecline',
        OK_ONLY = 'okOnly',
    }
}

