import { invalidParameter } from '../core/errors.js';
import { queryString } from './routing.js';

export const MAX_PER_PAGE = 100;

export interface Paging {
  page: number;
  perPage: number;
}

const POSITIVE_INTEGER = /^\d+$/;

/** Reads `page` (1-based) and `perPage` (1 to 100). */
export function parsePaging(query: Record<string, unknown>, defaultPerPage: number): Paging {
  const pageText = queryString(query, 'page');
  const perPageText = queryString(query, 'perPage');
  let page = 1;
  let perPage = defaultPerPage;
  if (pageText !== undefined) {
    if (!POSITIVE_INTEGER.test(pageText) || Number(pageText) < 1) {
      throw invalidParameter('page', `page must be a whole number of 1 or more (pages are 1-based; the first page is page=1); got ${JSON.stringify(pageText)}`);
    }
    page = Number(pageText);
  }
  if (perPageText !== undefined) {
    if (!POSITIVE_INTEGER.test(perPageText) || Number(perPageText) < 1 || Number(perPageText) > MAX_PER_PAGE) {
      throw invalidParameter('perPage', `perPage must be a whole number from 1 to ${MAX_PER_PAGE}; got ${JSON.stringify(perPageText)}`);
    }
    perPage = Number(perPageText);
  }
  return { page, perPage };
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
