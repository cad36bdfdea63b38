import { z } from 'zod';

const described = { description: z.string().max(2000).optional().describe('Shown in /v1/openapi.json and /docs.') };
const planName = (what: string) => z.string().min(1).max(32).describe(what);

/** One list parameter: its type decides how the gateway validates it before any upstream call. */
export const paramSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('string'), max_length: z.number().int().min(1).max(10_000).default(200), default: z.string().optional(), ...described }).strict(),
  z.object({ type: z.literal('integer'), min: z.number().int().optional(), max: z.number().int().optional(), default: z.number().int().optional(), ...described }).strict(),
  z.object({ type: z.literal('boolean'), default: z.boolean().optional(), ...described }).strict(),
  z.object({ type: z.literal('date'), default: z.string().optional(), ...described }).strict(),
  z.object({ type: z.literal('enum'), values: z.array(z.string().min(1).max(200)).min(1).max(1000), default: z.string().optional(), ...described }).strict(),
  z.object({ type: z.literal('id'), default: z.number().int().optional(), ...described }).strict(),
  z
    .object({ type: z.literal('point'), ...described })
    .strict()
    .describe('lat,lng in decimal degrees'),
]);

export const fieldRuleSchema = z
  .object({
    min_plan: planName('Lowest plan that receives the field.'),
    preview: z.boolean().default(false).describe('Below min_plan a preview replaces the field instead of removing it.'),
    ...described,
  })
  .strict();

export const subresourceSchema = z
  .object({
    min_plan: planName('Lowest plan that may call the sub-resource; below it 403 plan_required.').default('free'),
    cost: z.number().int().min(0).max(100).default(1).describe('Calls a request of the sub-resource costs (relations: 2).'),
    ...described,
  })
  .strict();

export const datasetSchema = z
  .object({
    path: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)?$/, 'lower-case path segments, at most two')
      .describe('Public path under /v1 (e.g. legal-documents, catalogs/agencies).'),
    upstream: z.string().min(1).max(64).describe('Name of the upstream in upstreams.yaml that serves it.'),
    upstream_path: z
      .string()
      .regex(/^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/, 'path segments without a leading or trailing "/"')
      .optional()
      .describe('Path on the upstream (under its base path), when it differs from path; defaults to path.'),
    id_prefix: z
      .string()
      .regex(/^[a-z][a-z0-9]*_$/, 'lower-case letters then _')
      .optional()
      .describe(
        'Prefix every id carries. A catalogue without detail whose items are named by their own ids (integers or codes, the values of a filter) has none.',
      ),
    min_plan: planName('Lowest plan that may call the dataset; below it 403 plan_required.').default('free'),
    title: z.string().min(1).max(200).optional().describe('English title, for /v1/datasets and the docs.'),
    title_vi: z.string().min(1).max(200).optional().describe('Vietnamese title, for /v1/datasets and the docs.'),
    ...described,
    cost: z.number().int().min(0).max(100).default(1).describe('Calls a list or detail request costs.'),
    detail: z.boolean().default(true).describe('Whether /{path}/{id} exists.'),
    list: z
      .object({
        params: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,40}$/, 'a parameter name is lowercase letters, digits and "_", starting with a letter'), paramSchema).default({}),
        require_one_of: z
          .array(z.string())
          .max(100)
          .default([])
          .describe('Parameters (q among them) of which a list request must carry at least one; else 422.'),
        ranges: z
          .array(z.object({ from: z.string(), to: z.string() }).strict())
          .default([])
          .describe('Pairs of date or integer parameters where from may not be after to; an inverted pair is 422.'),
      })
      .strict()
      .prefault({}),
    fields: z
      .record(z.string().min(1).max(64), fieldRuleSchema)
      .default({})
      .describe('Plan-gated fields of the records: removed, or replaced by a preview, below their min_plan.'),
    subresources: z
      .record(z.string().regex(/^[a-z][a-z0-9-]*$/), subresourceSchema)
      .default({})
      .describe('Sub-resources at /{path}/{id}/{name} (e.g. relations).'),
    full_text_field: z.string().optional().describe('Field whose full text counts against the daily full-text cap.'),
    bulk_watch: z.boolean().default(true).describe('Whether ids returned count towards bulk-extraction detection.'),
  })
  .strict()
  .refine((d) => d.id_prefix !== undefined || !d.detail, {
    message: 'a dataset with a detail endpoint needs id_prefix',
    path: ['id_prefix'],
  });

export const datasetsFileSchema = z
  .object({
    datasets: z.array(datasetSchema).min(1),
  })
  .strict();

export type ParamSpec = z.infer<typeof paramSchema>;
export type FieldRule = z.infer<typeof fieldRuleSchema>;
export type DatasetConfig = z.infer<typeof datasetSchema>;
export type DatasetsFile = z.infer<typeof datasetsFileSchema>;
