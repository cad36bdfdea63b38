import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { compileConfig } from './compile-config';
import { ConfigError, loadRawConfig } from './load-config';

const CONFIG_DIR = join(__dirname, '..', '..', 'config');

type Doc = Record<string, unknown>;
interface DatasetDoc {
  path: string;
  upstream: string;
  upstream_path?: string;
  list: { params: Record<string, Doc> };
}

/** Loads and compiles the shipped config after one file is edited, as a dataset team would. */
function startWith(
  file: 'datasets.yaml' | 'upstreams.yaml' | 'plans.yaml' | 'gateway.yaml',
  edit: (doc: Doc) => void): () => unknown {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-mistakes-'));
    try {
      cpSync(CONFIG_DIR, dir, { recursive: true });
      const doc = parse(readFileSync(join(dir, file), 'utf8')) as Doc;
      edit(doc);
      writeFileSync(join(dir, file), stringify(doc));
      return compileConfig(loadRawConfig(dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
const bailiff = (doc: Doc): DatasetDoc =>
  (doc.datasets as DatasetDoc[]).find((d) => d.path === 'bailiff-offices')!;
const upstream = (doc: Doc, name: string): Doc => (doc.upstreams as Record<string, Doc>)[name]!;

describe('config mistakes a dataset team could make are refused at start', () => {
  it.each(['key', 'token', 'api_key', 'access_token'])(
    'refuses a list parameter named %s, which the gateway would always answer with 401',
    (name) => {
      const load = startWith('datasets.yaml', (doc) => {
        bailiff(doc).list.params[name] = { type: 'string' };
      });
      expect(load).toThrow(/datasets\.yaml: datasets\.\d+ \(bailiff-offices\)\.list\.params\.\w+.*API key/i);
    },
  );

  it.each(['constructor', 'toString', 'nowhere'])(
    'refuses a trusted proxy named %s as neither an address nor a named range',
    (name) => {
      const load = startWith('gateway.yaml', (doc) => {
        doc.trusted_proxies = ['loopback', name];
      });
      expect(load).toThrow(
        `gateway.yaml: trusted_proxies: "${name}" is neither an address or CIDR nor one of loopback, private, uniquelocal, linklocal`,
      );
    },
  );

  it('refuses a dataset with a detail endpoint and no id_prefix', () => {
    const load = startWith('datasets.yaml', (doc) => {
      delete (bailiff(doc) as unknown as Doc).id_prefix;
    });
    expect(load).toThrow(/datasets\.\d+ \(bailiff-offices\)\.id_prefix: a dataset with a detail endpoint needs id_prefix/);
  });

  it('refuses two datasets with one id_prefix, which would make their ids ambiguous', () => {
    const load = startWith('datasets.yaml', (doc) => {
      (bailiff(doc) as unknown as Doc).id_prefix = 'vb_';
    });
    expect(load).toThrow(/id_prefix: "vb_" is already the id_prefix of legal-documents/);
  });

  it('refuses an integer parameter whose min is above its max', () => {
    const load = startWith('datasets.yaml', (doc) => {
      bailiff(doc).list.params.year = { type: 'integer', min: 100, max: 10 };
    });
    expect(load).toThrow(/params\.year\.min: min 100 is above max 10/);
  });

  it('names the dataset by its path, not only its position, in a schema error', () => {
    const load = startWith('datasets.yaml', (doc) => {
      bailiff(doc).list.params.year = { type: 'integer', minimum: 1 };
    });
    expect(load).toThrow(/datasets\.\d+ \(bailiff-offices\)\.list\.params\.year/);
  });

  it.each(['/bailiff-offices', 'bailiff-offices/', 'a//b'])('refuses upstream_path %s', (p) => {
    const load = startWith('datasets.yaml', (doc) => {
      bailiff(doc).upstream_path = p;
    });
    expect(load).toThrow(/upstream_path.*leading or trailing/);
  });

  it.each([
    'http://user:secret@127.0.0.1:8102',
    'http://127.0.0.1:8102/api?tenant=b',
    'http://127.0.0.1:8102/#x',
  ])('refuses the upstream URL %s, whose credentials, query or fragment would be dropped', (url) => {
    const load = startWith('upstreams.yaml', (doc) => {
      upstream(doc, 'directory').url = url;
    });
    expect(load).toThrow(/upstreams\.directory\.url: .*no credentials, query or fragment/);
  });

  it.each(['127.0.0.1:8102', 'http://', 'http://127.0.0.1:99999'])(
    'names an upstream URL node cannot read (%s) as a config mistake, not an exception',
    (url) => {
      const load = startWith('upstreams.yaml', (doc) => {
        upstream(doc, 'directory').url = url;
      });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/upstreams\.yaml: upstreams\.directory\.url: Invalid URL/);
    },
  );

  it('says what an upstream name may be made of', () => {
    const load = startWith('upstreams.yaml', (doc) => {
      (doc.upstreams as Record<string, Doc>).Fuel_Prices = { url: 'http://127.0.0.1:8199' };
    });
    expect(load).toThrow(/lowercase letters, digits and "-"/);
  });

  it.each([-5, 0])('names the bound a plan rate must meet (per_minute %d: at least 1)', (value) => {
    const load = startWith('plans.yaml', (doc) => {
      ((doc.plans as Record<string, Doc>).starter as Doc).per_minute = value;
    });
    expect(load).toThrow(/plans\.starter\.per_minute: .*>=1/);
  });
});
