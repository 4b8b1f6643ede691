import { SIGNED_ENDPOINTS } from '../../sdk/src/endpoints';
import { localDocument } from '../support/openapi';

/** The SDK's table of signed endpoints against the OpenAPI document the API serves. */
describe('the SDK against /openapi.json', () => {
  const doc = localDocument();

  it('sends every signed action to an operation the document declares with that action', () => {
    const mismatched: string[] = [];
    for (const [action, endpoint] of Object.entries(SIGNED_ENDPOINTS)) {
      // Placeholder ids turned back into the document's templates.
      const concrete = endpoint.path('ID1/ID2');
      const template = concrete.replace(/ID1%2FID2|ID1/g, '{a}').replace(/ID2/g, '{b}');
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[ab]\\?\}/g, '\\{[A-Za-z]+\\}')}$`,
      );
      const found = Object.entries(doc.paths as Record<string, Record<string, any>>).find(
        ([path, item]) =>
          pattern.test(path) && item[endpoint.method.toLowerCase()]?.['x-signed-action']?.action === action,
      );
      if (!found) mismatched.push(`${action}: ${endpoint.method} ${concrete}`);
    }
    expect(mismatched).toEqual([]);
  });

  it('covers every operation the document signs', () => {
    const signed = Object.values(doc.paths as Record<string, Record<string, any>>)
      .flatMap((item) => Object.values(item))
      .map((op) => op?.['x-signed-action']?.action)
      .filter((a): a is string => typeof a === 'string' && !a.includes(' '));
    expect([...new Set(signed)].sort()).toEqual(Object.keys(SIGNED_ENDPOINTS).sort());
  });
});
