"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.GenerateTokenForm = void 0;
var GenerateTokenForm;
(function (GenerateTokenForm) {
    let client;
    (function (client) {
        client["REFERER"] = "referer";
        client["REQUESTIP"] = "requestip";
        client["IP"] = "ip";
    })(client = GenerateTokenForm.client || (GenerateTokenForm.client = {}));
})(GenerateTokenForm || (exports.GenerateTokenForm = GenerateTokenForm = {}));
