import type { DemoAccount, DemoKey } from './demo-accounts';

export interface StartBanner {
  port: number;
  adminPort: number;
  /** Made by this start: their keys are shown now and never again. */
  created?: DemoKey[];
  /** Made by an earlier start on the same data: only their ids can be shown (keys are hashes). */
  existing?: DemoAccount[];
  /** An admin token, when this start can sign one its user has no other way to get. */
  adminToken?: string;
}

/**
 * What a start tells the person who ran it (stdout, never the log). A restart on the same data
 * directory names the demo accounts and how to issue a key, and prints a fresh admin token, so
 * that whoever lost the first start's output is not locked out of their own install.
 */
export function startBanner(b: StartBanner): string {
  let text = '';
  if (b.created && b.created.length > 0) {
    const lines = b.created.map((d) => `  ${d.plan.padEnd(11)} ${d.key}   (${d.email})`).join('\n');
    const first = b.created[0]!.key;
    text +=
      `\nDemo accounts created (keys are shown only now):\n${lines}\n\n` +
      `Try: curl -H "X-Api-Key: ${first}" "http://localhost:${b.port}/v1/legal-documents?q=luat"\n`;
  } else if (b.existing && b.existing.length > 0) {
    const lines = b.existing.map((d) => `  ${d.plan.padEnd(11)} ${d.accountId}   (${d.email})`).join('\n');
    text +=
      `\nDemo accounts (their keys were shown at the first start on this data directory):\n${lines}\n\n` +
      `A new key: npm run admin -- keys create <account id>\n`;
  }
  if (b.adminToken)
    text += `\nAdmin token (admin API on port ${b.adminPort}; valid 30 days):\n  ${b.adminToken}\n\n`;
  return text;
}
