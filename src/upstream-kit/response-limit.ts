/**
 * The largest upstream answer the gateway reads (DESIGN §4's contract, enforced by its proxy):
 * anything larger is a broken upstream, answered to the caller as 503. The importer keeps each
 * record well under it, so every record it loads can be served.
 */
export const MAX_UPSTREAM_RESPONSE_BYTES = 32 * 1024 * 1024;
