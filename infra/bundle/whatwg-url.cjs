// node-fetch 2 (client-node's HTTP client) imports whatwg-url only as a fallback for runtimes without a
// global URL (`Url.URL || whatwgUrl.URL`). Node 22 has one, so the bundles alias the package to it and leave
// out whatwg-url and its tr46 Unicode tables (≈ 290 kB minified). serverless.yml custom.esbuild.alias.
module.exports = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams };
