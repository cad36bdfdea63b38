/**
 * The subset of OpenAPI 3.1 this generator writes. Typed by hand (no dependency) so that the
 * generator cannot emit a shape the document format does not have.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema 2020-12 object (OpenAPI 3.1 schemas are plain JSON Schema). */
export interface SchemaObject {
  [keyword: string]: JsonValue;
}

/** Vendor extensions: x-min-plan, x-cost, x-require-one-of, x-plans… */
export type Extensions = { [extension: `x-${string}`]: JsonValue };

export interface RefObject {
  $ref: string;
}

export interface ExampleObject {
  summary: string;
  value: JsonValue;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: SchemaObject;
}

export interface MediaTypeObject {
  schema: SchemaObject;
  examples?: Record<string, ExampleObject>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | RefObject>;
  content?: Record<string, MediaTypeObject>;
}

export type ParameterObject = Extensions & {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: SchemaObject;
  example?: JsonValue;
};

export type OperationObject = Extensions & {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: (ParameterObject | RefObject)[];
  responses: Record<string, ResponseObject | RefObject>;
  security?: Record<string, string[]>[];
};

export interface PathItemObject {
  get: OperationObject;
}

export interface TagObject {
  name: string;
  description: string;
}

export interface SecuritySchemeObject {
  type: 'http' | 'apiKey';
  description: string;
  scheme?: string;
  in?: 'header';
  name?: string;
}

export interface ComponentsObject {
  schemas: Record<string, SchemaObject>;
  parameters: Record<string, ParameterObject>;
  headers: Record<string, HeaderObject>;
  responses?: Record<string, ResponseObject>;
  securitySchemes: Record<string, SecuritySchemeObject>;
}

export type OpenApiDocument = Extensions & {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license: { name: string; identifier?: string; url?: string };
    contact?: { name: string; url: string };
  };
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  components: ComponentsObject;
};

export const ref = (kind: keyof ComponentsObject, name: string): RefObject => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A $ref usable wherever a schema is (a 3.1 schema may be a bare reference). */
export const schemaRef = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
