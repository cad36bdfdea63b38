/**
 * A plan's name as customers read it ("free" → "Free"): the reference names plans Free, Starter,
 * Pro and Enterprise, while config keys, /v1/me and the admin API use the lower-case key.
 */
export function planLabel(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
