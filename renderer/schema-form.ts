/**
 * The tool console's form, from simple input schemas: a flat object of
 * string, number, integer, boolean and enum properties. Anything richer falls
 * back to raw JSON. The core validates the arguments against the full schema
 * either way; this only helps a person type them.
 */

import { ownEntry } from '../shared/plain';

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';
export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: unknown[];
}

/** The fields of a flat object schema, or undefined when the form cannot express it (then raw JSON). */
export function fieldsOf(schema: Record<string, unknown>): Field[] | undefined {
  const properties = schema.properties;
  if (schema.type !== undefined && schema.type !== 'object') return undefined;
  if (properties === undefined) return [];
  if (typeof properties !== 'object' || properties === null) return undefined;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null) return undefined;
    const prop = raw as Record<string, unknown>;
    const description = typeof prop.description === 'string' ? prop.description : undefined;
    const base = { name, required: required.includes(name), ...(description ? { description } : {}) };
    if (Array.isArray(prop.enum) && prop.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
      fields.push({ ...base, kind: 'enum', options: prop.enum });
    } else if (prop.type === 'string' || prop.type === 'number' || prop.type === 'integer' || prop.type === 'boolean') {
      fields.push({ ...base, kind: prop.type });
    } else {
      return undefined;
    }
  }
  return fields;
}

/** Builds the arguments from the form's text values; a message for the first problem. */
export function argumentsFrom(fields: Field[], values: Record<string, string>): { value?: Record<string, unknown>; error?: string } {
  // Argument names are the server's: a null-prototype object keeps `__proto__` and friends as plain entries.
  const out = Object.create(null) as Record<string, unknown>;
  for (const field of fields) {
    const text = ownEntry(values, field.name) ?? '';
    if (field.kind === 'boolean') {
      if (text === 'true') out[field.name] = true;
      else if (text === 'false') out[field.name] = false;
      else if (field.required) return { error: `Choose a value for ${field.name}.` };
      continue;
    }
    if (text === '') {
      if (field.required) return { error: `${field.name} is required.` };
      continue;
    }
    if (field.kind === 'number' || field.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.kind === 'integer' && !Number.isInteger(n))) return { error: `${field.name} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}.` };
      out[field.name] = n;
    } else if (field.kind === 'enum') {
      const option = field.options?.find((o) => String(o) === text);
      out[field.name] = option;
    } else {
      out[field.name] = text;
    }
  }
  return { value: out };
}
