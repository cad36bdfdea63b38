// swagger-ui-dist ships no types; only its absolute-path helper is used (by docs-router.ts), and
// importing that file alone avoids loading the browser bundle into the server.
declare module 'swagger-ui-dist/absolute-path.js' {
  /** Directory holding swagger-ui-dist's static files. */
  function absolutePath(): string;
  export = absolutePath;
}
