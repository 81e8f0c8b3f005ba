/* generated using openapi-typescript-codegen -- do not edit */
/* istanbul ignore file */
/* tslint:disable */
/* eslint-disable */
import type { Format } from './Format';
export type GenerateTokenForm = {
    username: string;
    password: string;
    /**
     * Minutes the token stays valid; 60 when absent.
     */
    expiration?: number;
    client?: GenerateTokenForm.client;
    referer?: string;
    'f'?: Format;
};
export namespace GenerateTokenForm {
    export enum client {
        REFERER = 'referer',
        REQUESTIP = 'requestip',
        IP = 'ip',
    }
}

