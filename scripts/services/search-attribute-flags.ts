import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';

/** Pre-registers our search attributes when the dev server starts (workers also ensure them). */
export const SEARCH_ATTRIBUTE_FLAGS: string[] = ALL_SEARCH_ATTRIBUTES.flatMap((k) => [
  '--search-attribute',
  `${k.name}=${k.type[0]}${k.type.slice(1).toLowerCase()}`,
]);
