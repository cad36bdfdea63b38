/** What a log line or an error message says of a failure: an Error's message, else the value as text. */
export const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));
