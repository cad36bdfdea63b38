import { STATUS } from './legal-catalogs';
import type { LegalDocumentRow, LegalGenContext } from './legal-generator';
import { makeLegalDocument } from './legal-generator';
import { rngFor } from './random';

export interface LegalRelationRow {
  from_id: string;
  kind: 'replaces' | 'cites';
  to_id: string;
}

export interface LegalCorpus {
  documents: LegalDocumentRow[];
  relations: LegalRelationRow[];
}

/**
 * A corpus of `count` documents with relations: a newer normative document sometimes replaces an
 * older one of the same type and field (which then becomes expired on the newer one's effective
 * date), and cites a few older ones.
 */
export function generateLegalCorpus(ctx: LegalGenContext, count: number): LegalCorpus {
  const documents: LegalDocumentRow[] = [];
  for (let n = 0; n < count; n++) documents.push(makeLegalDocument(ctx, n));
  const rng = rngFor(ctx.seed, 'legal-relations', count);
  const byAge = documents.filter((d) => d.database === 'vbqppl').sort((a, b) => a.issued_date.localeCompare(b.issued_date) || a.id.localeCompare(b.id));
  const lastOfKind = new Map<string, LegalDocumentRow>();
  const replaced = new Set<string>();
  const relations: LegalRelationRow[] = [];
  byAge.forEach((doc, i) => {
    const kind = `${doc.type_id}:${doc.field_id}`;
    const older = lastOfKind.get(kind);
    // Only a document taking effect after the older one did can end it: an expiry before the older
    // one's own effective date would be a record no legal database holds.
    const endsOlder = older !== undefined && (older.effective_date ?? '') < (doc.effective_date ?? '');
    if (older && endsOlder && !replaced.has(older.id) && older.issued_date < doc.issued_date && rng.chance(0.35)) {
      relations.push({ from_id: doc.id, kind: 'replaces', to_id: older.id });
      replaced.add(older.id);
      older.status_id = STATUS.expired;
      older.expired_date = doc.effective_date;
    }
    lastOfKind.set(kind, doc);
    const cites = i > 0 ? rng.int(0, 3) : 0;
    const seen = new Set<string>();
    for (let c = 0; c < cites; c++) {
      const target = byAge[rng.int(0, i - 1)]!;
      if (seen.has(target.id)) continue;
      seen.add(target.id);
      relations.push({ from_id: doc.id, kind: 'cites', to_id: target.id });
    }
  });
  return { documents, relations };
}
