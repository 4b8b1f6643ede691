import { createHash } from 'node:crypto';

/**
 * RFC 8785 (JCS) canonical JSON.
 *
 * Why not the `canonicalize` package: the installed version (4.0.0) is ESM-only and
 * exports only the "import" condition, so `require('canonicalize')` — which is what
 * this CommonJS project and jest compile imports to — fails with
 * ERR_PACKAGE_PATH_NOT_EXPORTED. This is the same algorithm (the unit tests diff it
 * against the package in a child process) with stricter input checks.
 *
 * Guiding rule: the client signs the object it sends and the server digests what
 * JSON.parse gave it, so the result must equal canonicalJson(JSON.parse(JSON.stringify(v)))
 * for every accepted v. Hence undefined-valued keys are dropped, undefined array
 * items become null and toJSON() is honoured, exactly as JSON.stringify does.
 * Values JSON.stringify would silently change or drop are rejected instead.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) throw new TypeError('canonicalJson: undefined is not JSON');
  return serialize(value, new Set<object>());
}

/**
 * Lower-case hex sha256 of the UTF-8 canonical JSON text; no 0x prefix. Hashed here rather than
 * with the ids module's sha256Hex: the SDK runs this on an agent's machine, and the ids module
 * loads mongoose.
 */
export function payloadDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

/** The `payload:` line value: '' (balance) stays empty, anything else is digested. */
export function signedPayload(payloadObject: object | ''): string {
  return payloadObject === '' ? '' : payloadDigest(payloadObject);
}

function serialize(value: unknown, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
      // ECMAScript Number-to-String is exactly what RFC 8785 section 3.2.2.3 prescribes (-0 gives "0").
      return JSON.stringify(value);
    case 'object':
      return value === null ? 'null' : serializeContainer(value, ancestors);
    default:
      // bigint, function, symbol, and undefined anywhere JSON.stringify would not drop it.
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
  }
}

function serializeContainer(value: object, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new TypeError('canonicalJson: circular reference');
  ancestors.add(value);
  try {
    const withToJson = value as { toJSON?: unknown };
    if (typeof withToJson.toJSON === 'function') {
      const replacement: unknown = withToJson.toJSON();
      if (replacement === undefined) throw new TypeError('canonicalJson: toJSON() returned undefined');
      return serialize(replacement, ancestors);
    }
    if (Array.isArray(value)) {
      const items = value.map((item: unknown) => (item === undefined ? 'null' : serialize(item, ancestors)));
      return `[${items.join(',')}]`;
    }
    const record = value as Record<string, unknown>;
    // Array.prototype.sort without a comparator orders by UTF-16 code units, as JCS requires.
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${serializeString(key)}:${serialize(record[key], ancestors)}`);
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
}

// With the u flag a valid surrogate pair is one code point, so only unpaired halves match.
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

function serializeString(text: string): string {
  // I-JSON (RFC 7493), which JCS builds on, forbids unpaired surrogates.
  if (UNPAIRED_SURROGATE.test(text)) throw new TypeError('canonicalJson: string contains an unpaired surrogate');
  return JSON.stringify(text);
}
