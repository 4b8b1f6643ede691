/** A readable rendering of a command's result for people; scripts pass --json instead. */
export function renderForHumans(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    return value.map((v, i) => `${indent}- [${i}]\n${renderForHumans(v, indent + '  ')}`).join('\n');
  }
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) =>
        v && typeof v === 'object' && !(v instanceof Date) ? `${indent}${k}:\n${renderForHumans(v, indent + '  ')}` : `${indent}${k}: ${scalar(v)}`,
      )
      .join('\n');
  }
  return `${indent}${scalar(value)}`;
}

function scalar(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v === null || v === undefined) return '-';
  return String(v);
}
