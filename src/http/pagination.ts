import { z } from 'zod';

import { parseInput } from './operation.js';
import { MAX_PER_PAGE, pagingQuery } from './schemas.js';

export { MAX_PER_PAGE };

export interface Paging {
  page: number;
  perPage: number;
}

/** Reads `page` (1-based) and `perPage` (1 to 100) with the paging schema; other keys are left to the caller. */
export function parsePaging(query: Record<string, unknown>, defaultPerPage: number): Paging {
  const { page, perPage } = parseInput(z.object(pagingQuery(defaultPerPage)), query, 'query');
  return { page: page ?? 1, perPage: perPage ?? defaultPerPage };
}

/** The list envelope shared by every list of the API; `key` names the array. */
export function pageOf<K extends string, T>(
  key: K,
  items: readonly T[],
  { page, perPage }: Paging,
): { page: number; perPage: number; pageCount: number; total: number } & Record<K, T[]> {
  const start = (page - 1) * perPage;
  return {
    page,
    perPage,
    // Production documents pageCount as a string but sends a number everywhere; so do we.
    pageCount: Math.ceil(items.length / perPage),
    total: items.length,
    [key]: items.slice(start, start + perPage),
  } as { page: number; perPage: number; pageCount: number; total: number } & Record<K, T[]>;
}
