import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';

/** Pre-registers our search attributes when the dev server starts (workers also ensure them). */
export const SEARCH_ATTRIBUTE_FLAGS: string[] = ALL_SEARCH_ATTRIBUTES.flatMap((k) => [
  '--search-attribute',
  // KEYWORD → Keyword, KEYWORD_LIST → KeywordList (the CLI's names).
  `${k.name}=${k.type.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}`,
]);
