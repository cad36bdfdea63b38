import type { CompiledDataset, CompiledField } from '../config/compile-config';
import { planLabel } from '../config/plan-label';
import { bi } from './bilingual';
import type { SchemaObject } from './openapi-types';
import { schemaRef } from './openapi-types';
import { RECORD_SCHEMAS } from './record-schemas';
import type { RecordVariant } from './record-schemas';

/** components.schemas being filled; a name is reused only for an identical schema. */
export class SchemaRegistry {
  readonly schemas: Record<string, SchemaObject> = {};

  /** Registers the schema under `name`, or under `name` + `fallbackSuffix` when `name` holds another. */
  add(name: string, schema: SchemaObject, fallbackSuffix: string): SchemaObject {
    const json = JSON.stringify(schema);
    for (const candidate of [name, `${name}${fallbackSuffix}`]) {
      const existing = this.schemas[candidate];
      if (existing === undefined) {
        this.schemas[candidate] = schema;
        return schemaRef(candidate);
      }
      if (JSON.stringify(existing) === json) return schemaRef(candidate);
    }
    throw new Error(`two different record schemas for ${name}${fallbackSuffix}`);
  }
}

/** "catalogs/law-fields" → "CatalogsLawFields": operation ids and component names. */
export function pascal(path: string): string {
  return path
    .split(/[^a-zA-Z0-9]+/)
    .filter((s) => s !== '')
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .join('');
}

const gatedText = (f: CompiledField, minPlan: string): string =>
  f.preview
    ? ` Gói ${planLabel(minPlan)}+; gói thấp hơn nhận bản xem trước. / ${planLabel(minPlan)}+; lower plans get a preview.`
    : ` Gói ${planLabel(minPlan)}+; gói thấp hơn không nhận trường này. / ${planLabel(minPlan)}+; removed for lower plans.`;

/**
 * Adds the plan requirement of every field (x-min-plan; datasets.yaml decides it) to a record schema.
 * A field removed for lower plans cannot be required; a gated field the shape does not describe is
 * added untyped, so plan rules written in YAML always show.
 */
function annotate(
  schema: SchemaObject,
  ds: CompiledDataset,
  planByRank: readonly string[],
  addMissing: boolean,
): SchemaObject {
  const props = { ...((schema.properties as Record<string, SchemaObject> | undefined) ?? {}) };
  const rules = new Map(ds.fields.map((f) => [f.name, f]));
  for (const [name, prop] of Object.entries(props)) {
    const rule = rules.get(name);
    const minPlan = rule ? planByRank[rule.minRank]! : ds.minPlan;
    const description = typeof prop.description === 'string' ? prop.description : '';
    props[name] = {
      ...prop,
      ...(rule ? { description: (description + gatedText(rule, minPlan)).trim() } : {}),
      'x-min-plan': minPlan,
      ...(rule?.preview ? { 'x-preview-below-min-plan': true } : {}),
    };
  }
  if (addMissing) {
    for (const rule of ds.fields) {
      if (props[rule.name]) continue;
      const minPlan = planByRank[rule.minRank]!;
      props[rule.name] = {
        description: (ds.source.fields[rule.name]?.description ?? '') + gatedText(rule, minPlan),
        'x-min-plan': minPlan,
        ...(rule.preview ? { 'x-preview-below-min-plan': true } : {}),
      };
    }
  }
  const removable = new Set(ds.fields.filter((f) => !f.preview).map((f) => f.name));
  const required = ((schema.required as string[] | undefined) ?? []).filter((n) => !removable.has(n));
  return { ...schema, required, properties: props };
}

/** For a dataset the reference does not describe: any object with an id, plus its gated fields. */
function genericVariant(ds: CompiledDataset): RecordVariant {
  return {
    name: `${pascal(ds.path)}Record`,
    schema: {
      type: 'object',
      description: bi(
        `Bản ghi của ${ds.source.title_vi ?? ds.path}; các trường chưa được mô tả chi tiết.`,
        `A record of ${ds.source.title ?? ds.path}; fields not described in detail.`,
      ),
      additionalProperties: true,
      required: ['id'],
      properties: {
        id: {
          type: ['string', 'integer'],
          description: `Mã bản ghi (tiền tố ${ds.idPrefix}) / Record id (prefix ${ds.idPrefix}).`,
        },
      },
    },
  };
}

export interface DatasetRecordRefs {
  list: SchemaObject;
  detail: SchemaObject;
  subresources: Map<string, SchemaObject>;
}

/** The record schemas of one dataset's list, detail and sub-resources, registered as components. */
export function datasetRecords(
  ds: CompiledDataset,
  planByRank: readonly string[],
  registry: SchemaRegistry,
): DatasetRecordRefs {
  const shape = RECORD_SCHEMAS.get(ds.path);
  const suffix = pascal(ds.path);
  const listV = shape?.list ?? genericVariant(ds);
  const detailV = shape?.detail ?? listV;
  // Gated fields are returned by the detail endpoint; a list-only dataset shows them on the list.
  const list = registry.add(listV.name, annotate(listV.schema, ds, planByRank, !ds.detail), suffix);
  const detail = ds.detail
    ? registry.add(
        detailV.name === listV.name ? `${detailV.name}Detail` : detailV.name,
        annotate(detailV.schema, ds, planByRank, true),
        suffix,
      )
    : list;
  const subresources = new Map<string, SchemaObject>();
  for (const sub of ds.subresources.values()) {
    const v = shape?.subresources?.[sub.name];
    const schema: SchemaObject = v?.schema ?? {
      type: 'object',
      description: bi(`Dữ liệu của ${sub.name}.`, `Payload of ${sub.name}.`),
      additionalProperties: true,
    };
    subresources.set(sub.name, registry.add(v?.name ?? `${suffix}${pascal(sub.name)}`, schema, suffix));
  }
  return { list, detail, subresources };
}
