import { readFileSync } from 'node:fs';

import { ALL_OPERATIONS } from '../../src/openapi/index.js';

/** `METHOD /path` with every path parameter written `{}`, whatever its name. */
const routeOf = (method: string, path: string): string => `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;

/** The routes named in the first cell of the tables of a Markdown page, as `` `GET /path` `` code spans (a query after `?` left out). */
function tableRoutes(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || !line.startsWith('|')) return [];
    const firstCell = line.split(/(?<!\\)\|/)[1] ?? '';
    return [...firstCell.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`?\s]*)[^`]*`/g)].map((m) =>
      routeOf(m[1]!, m[2]!),
    );
  });
}

const documented = tableRoutes(readFileSync('docs/api.md', 'utf8'));
const served = ALL_OPERATIONS.map((op) => routeOf(op.method, op.path));

describe('the route tables of docs/api.md', () => {
  it('name every route the sandbox serves', () => {
    expect(served.filter((route) => !documented.includes(route))).toEqual([]);
  });

  it('name no route the sandbox does not serve, and none twice', () => {
    expect(documented.filter((route) => !served.includes(route))).toEqual([]);
    expect(documented.filter((route, i) => documented.indexOf(route) !== i)).toEqual([]);
  });

  it('are read as written: a route per code span of a first cell, its parameters by position, its query left out', () => {
    const page = [
      '| Call | Effect |',
      '|---|---|',
      '| `GET /a/{id}`, `POST /a/{x}/b?c=…` | `PUT /not/a/route` here |',
      '```',
      '| `GET /in/a/fence` |',
      '```',
      '`GET /in/prose`',
    ].join('\n');
    expect(tableRoutes(page)).toEqual(['GET /a/{}', 'POST /a/{}/b']);
    expect(served.length).toBeGreaterThan(40);
  });
});
