/**
 * A product action's JSON Schema as the widget's form: one field per top-level property, typed
 * for the browser to coerce, the rest of the schema (nested objects, arrays) as a JSON field.
 * The vendor's schema is checked again on invoke; the form is only a convenience.
 */

export type FieldInput = 'text' | 'number' | 'integer' | 'checkbox' | 'select' | 'json';

export interface FormField {
  name: string;
  label: string;
  description: string;
  input: FieldInput;
  required: boolean;
  options: string[];
  defaultValue: string;
}

export function formFields(schema: Record<string, unknown>): FormField[] {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => {
    const options = Array.isArray(p.enum) ? p.enum.map((v) => String(v)) : [];
    return {
      name,
      label: typeof p.title === 'string' ? p.title : name,
      description: typeof p.description === 'string' ? p.description : '',
      input: inputOf(p, options),
      required: required.has(name),
      options,
      defaultValue:
        p.default === undefined ? '' : typeof p.default === 'string' ? p.default : JSON.stringify(p.default),
    };
  });
}

function inputOf(p: Record<string, unknown>, options: string[]): FieldInput {
  if (options.length && (p.type === 'string' || p.type === undefined)) return 'select';
  switch (p.type) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'checkbox';
    default:
      return 'json';
  }
}
