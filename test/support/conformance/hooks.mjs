// Resolves the conformance CLI's `fs` import to fs-shim.mjs (only for that package).
import { URL } from 'node:url';
const shim = new URL('./fs-shim.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('/@modelcontextprotocol/conformance/')
  )
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
