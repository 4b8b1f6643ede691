import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { BoundedCache } from '../platform/cache/bounded-cache';

/**
 * JSON Schema validation of action parameters (draft-07 via ajv). Schemas are compiled once per
 * (product, action, version) and kept in a bounded cache. Parameters are checked before any
 * credit is held or any payment verified, so a hostile body costs nothing but this check.
 */
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, allowUnionTypes: true });

const MAX_PARAMETERS_BYTES = 64 * 1024;
const MAX_DEPTH = 16;
const cache = new BoundedCache<ValidateFunction>(2000);

export interface ParameterProblem {
  path: string;
  message: string;
}

/** Throws with a readable reason when `schema` is not a usable JSON Schema (operator input). */
export function checkSchema(schema: unknown): void {
  if (!ajv.validateSchema(schema as object)) throw new Error(`not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  ajv.compile(schema as object);
}

function compiled(key: string, schema: Record<string, unknown>): ValidateFunction {
  return cache.get(key) ?? cache.set(key, ajv.compile(schema));
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_DEPTH || value === null || typeof value !== 'object') return level;
  let max = level;
  for (const v of Object.values(value)) max = Math.max(max, depth(v, level + 1));
  return max;
}

/** Problems of `parameters` against the action's schema; empty when they pass. */
export function parameterProblems(
  cacheKey: string,
  schema: Record<string, unknown>,
  parameters: unknown,
): ParameterProblem[] {
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters))
    return [{ path: '', message: 'parameters must be a JSON object' }];
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(parameters));
  } catch {
    return [{ path: '', message: 'parameters must be plain JSON' }];
  }
  if (size > MAX_PARAMETERS_BYTES) return [{ path: '', message: `parameters exceed ${MAX_PARAMETERS_BYTES} bytes` }];
  if (depth(parameters) > MAX_DEPTH) return [{ path: '', message: `parameters nest deeper than ${MAX_DEPTH} levels` }];
  const validate = compiled(cacheKey, schema);
  if (validate(parameters)) return [];
  return (validate.errors ?? [])
    .slice(0, 20)
    .map((e: ErrorObject) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid' }));
}
