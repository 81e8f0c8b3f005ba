"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FooterMailLink = void 0;
var FooterMailLink;
(function (FooterMailLink) {
    let type;
    (function (type) {
        type["CONTACT_US"] = "contactUs";
        type["REPORT_ABUSE"] = "reportAbuse";
    })(type = FooterMailLink.type || (FooterMailLink.type = {}));
})(FooterMailLink || (exports.FooterMailLink = FooterMailLink = {}));
