// Makes the page written by `redocly build-docs` self-contained: build-docs
// always loads Redoc's browser bundle from cdn.redocly.com, so the page would
// not render offline nor behind a strict Content-Security-Policy. This script
// replaces that <script src> with the same bundle inlined from the pinned
// redoc package, keeps the bundle from loading its logo from cdn.redoc.ly,
// and fails when the page or the versions are not as expected.
//
// Usage: node inline-redoc.mjs IN.html OUT.html
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node inline-redoc.mjs IN.html OUT.html');
  process.exit(2);
}

const require = createRequire(import.meta.url);
const version = require('redoc/package.json').version;
const bundlePath = require.resolve('redoc/bundles/redoc.standalone.js');
// The page ships the bundle, so it ships the notices the bundle points to.
const license = readFileSync(require.resolve('redoc/LICENSE'), 'utf8');
if (license.includes('*/')) {
  console.error('redoc/LICENSE contains "*/": cannot put it in a comment');
  process.exit(1);
}
let bundle =
  `/*! redoc ${version}\n${license}*/\n` +
  readFileSync(`${bundlePath}.LICENSE.txt`, 'utf8') +
  readFileSync(bundlePath, 'utf8').replace(
    '/*! For license information please see redoc.standalone.js.LICENSE.txt */',
    '',
  );
// The side menu's Redocly logo is an <img> of cdn.redoc.ly, added by the
// script after load, which hides it when it fails to load. An empty src
// fails without a request: the page keeps the "API docs by Redocly" link
// and asks no other origin for anything.
const logo = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
if (bundle.split(logo).length !== 2) {
  console.error(`redoc.standalone.js: expected the logo URL ${logo} once: see what this redoc loads from another origin`);
  process.exit(1);
}
bundle = bundle.replace(logo, '""');
// A closing tag inside the bundle would end the inline script early.
if (/<\/script/i.test(bundle)) {
  console.error('redoc.standalone.js contains "</script": cannot inline it');
  process.exit(1);
}

const page = readFileSync(input, 'utf8');
const tags = [...page.matchAll(/<script src="https:\/\/cdn\.redocly\.com\/redoc\/v([^/"]+)\/bundles\/redoc\.standalone\.js"><\/script>/g)];
if (tags.length !== 1) {
  console.error(`${input}: expected one Redoc CDN <script>, found ${tags.length}`);
  process.exit(1);
}
// The prerendered markup and the hydration state come from the redoc that
// build-docs runs; the bundle must be that same version.
if (tags[0][1] !== version) {
  console.error(`${input}: page wants redoc ${tags[0][1]}, tools/redocly pins ${version}: align package.json`);
  process.exit(1);
}
// The request samples are written for the address of `make run`; the page
// shows them for the server serving it. Before Redoc hydrates, the script
// rewrites that address in the samples of the state and in the prerendered
// sample panels alike, so that the two still match (a difference would be a
// hydration mismatch).
const sampleOrigin = 'http://127.0.0.1:8080';
const hydrate = "\n      var container = document.getElementById('redoc');\n      Redoc.hydrate(__redoc_state, container);";
if (page.split(hydrate).length !== 2) {
  console.error(`${input}: expected Redoc.hydrate once, as build-docs writes it: see how samples get the page's origin`);
  process.exit(1);
}
const originScript = `
      (function (from, to) {
        if (to === from || !/^https?:$/.test(location.protocol)) return;
        // The ArcGIS API for Python's samples, written for https://, keep the
        // scheme: that client speaks HTTPS only.
        var tlsFrom = from.replace(/^http:/, 'https:'), tlsTo = 'https://' + location.host;
        function swap(text) { return text.split(tlsFrom).join(tlsTo).split(from).join(to); }
        var paths = __redoc_state.spec.data.paths || {};
        Object.keys(paths).forEach(function (p) {
          Object.keys(paths[p]).forEach(function (m) {
            var list = paths[p][m] && paths[p][m]['x-codeSamples'];
            (Array.isArray(list) ? list : []).forEach(function (s) { s.source = swap(s.source); });
          });
        });
        document.querySelectorAll('#redoc h3').forEach(function (h) {
          if (h.textContent.trim() !== 'Request samples' || !h.nextElementSibling) return;
          var walk = document.createTreeWalker(h.nextElementSibling, NodeFilter.SHOW_TEXT);
          for (var n = walk.nextNode(); n; n = walk.nextNode()) n.data = swap(n.data);
        });
      })(${JSON.stringify(sampleOrigin)}, location.origin);`;
// A function replacement: a string one would expand "$&" and the like found in the bundle.
const out = page
  .replace(hydrate, () => originScript + hydrate)
  .replace(tags[0][0], () => `<script>${bundle}</script>`);
// Links (<a href>) may point anywhere; what the page loads may not.
if (/<(?:script|img|iframe)\b[^>]*\bsrc="(?:https?:)?\/\/|<link\b[^>]*\bhref="(?:https?:)?\/\/|cdn\.redoc/i.test(out)) {
  console.error(`${input}: still loads a resource from another origin (see tools/redocly/template.hbs)`);
  process.exit(1);
}
writeFileSync(output, out);
