/**
 * The bytes of upstream answers the process holds at once, across every upstream. Each answer is
 * read whole before it is reshaped, and one may be 32 MB: without a bound shared by all of them,
 * a burst of large answers would take the process past its memory limit, and the orchestrator's
 * kill would drop every request in flight, not only the large ones.
 */
export interface BodyBudget {
  /** Takes `bytes` if they fit, and says whether they did. */
  take(bytes: number): boolean;
  give(bytes: number): void;
  /** Bytes taken and not given back. */
  held(): number;
}

export function createBodyBudget(maxBytes: number): BodyBudget {
  let held = 0;
  return {
    take(bytes) {
      if (held + bytes > maxBytes) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held -= bytes;
    },
    held: () => held,
  };
}
