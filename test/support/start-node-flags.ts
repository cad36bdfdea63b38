import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The flags `npm start` gives node before dist/main.js: how the product runs. The Kubernetes
 * gateway's command and the image's entrypoint set the same (deploy tests compare them), and the
 * benchmark starts the gateway with them.
 */
export function startNodeFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const m = /\bnode((?: --\S+)*) dist\/main\.js/.exec(pkg.scripts.start ?? '');
  if (!m) throw new Error('package.json: the start script does not run node … dist/main.js');
  return m[1]!.split(' ').filter(Boolean);
}
