/**
 * kustomize cannot read files outside a kustomization root, so the base generates ConfigMap
 * lookup-config from copies of config/ in deploy/k8s/base/config/. They must stay byte-identical:
 * refresh them with deploy/sync-config.sh.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_DIR, REPO_ROOT } from './deploy-helpers';

const CONFIG_DIR = join(REPO_ROOT, 'config');
const COPY_DIR = join(DEPLOY_DIR, 'k8s', 'base', 'config');
const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();

describe('deploy/k8s/base/config mirrors config/', () => {
  it('holds the same files', () => {
    expect(yamlFiles(COPY_DIR)).toEqual(yamlFiles(CONFIG_DIR));
  });

  it.each(yamlFiles(CONFIG_DIR))('%s is byte-identical (run deploy/sync-config.sh)', (file) => {
    expect(readFileSync(join(COPY_DIR, file)).equals(readFileSync(join(CONFIG_DIR, file)))).toBe(true);
  });

  it('lists every config file in the base configMapGenerator', () => {
    const kustomization = parse(
      readFileSync(join(DEPLOY_DIR, 'k8s', 'base', 'kustomization.yaml'), 'utf8'),
    ) as {
      configMapGenerator: { name: string; files: string[] }[];
    };
    const gen = kustomization.configMapGenerator.find((g) => g.name === 'lookup-config');
    expect(gen?.files.map((f) => f.replace(/^config\//, '')).sort()).toEqual(yamlFiles(CONFIG_DIR));
  });
});
