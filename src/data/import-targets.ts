import { DIRECTORY_IMPORTS } from '../upstreams/directory/directory-import';
import { LEGAL_CATALOG_IMPORTS } from '../upstreams/legal/legal-catalogs-import';
import { legalDocumentsImport } from '../upstreams/legal/legal-import';
import { MOF_IMPORTS } from '../upstreams/mof-catalogs/mof-catalogs-import';
import type { ImportTarget } from './import-jsonl';

/** Datasets `npm run import` can load, by public path. */
export const IMPORT_TARGETS: Record<string, ImportTarget> = Object.fromEntries(
  [
    ...LEGAL_CATALOG_IMPORTS,
    legalDocumentsImport as unknown as ImportTarget,
    ...DIRECTORY_IMPORTS,
    ...MOF_IMPORTS,
  ].map((t) => [t.dataset, t]),
);
