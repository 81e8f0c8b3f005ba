"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AccessNotice = void 0;
var AccessNotice;
(function (AccessNotice) {
    /**
     * `acceptAndDecline`: the user accepts or declines; `okOnly`: the user sees only OK.
     */
    let buttons;
    (function (buttons) {
        buttons["ACCEPT_AND_DECLINE"] = "acceptAndDecline";
        buttons["OK_ONLY"] = "okOnly";
    })(buttons = AccessNotice.buttons || (AccessNotice.buttons = {}));
})(AccessNotice || (exports.AccessNotice = AccessNotice = {}));
