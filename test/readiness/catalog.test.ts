import { readFileSync } from 'node:fs';

import { CATALOG, GUIDE } from '../../src/readiness/catalog.js';
import { CHECK_IDS } from '../../src/readiness/model.js';

/** The report's `docs` links: each names a section of the guide that exists, about that check. */

/** GitHub's anchor of a heading: lower case, punctuation other than - dropped, spaces as -. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

const headings = readFileSync(GUIDE, 'utf8')
  .split('\n')
  .filter((line) => /^#{1,6} /.test(line))
  .map((line) => line.replace(/^#+ /, ''));

it.each(CHECK_IDS)('%s links to its own section of the guide', (id) => {
  expect(headings).toContain(id);
  expect(CATALOG[id].anchor).toBe(anchorOf(id));
});

it('every check says what to change in one sentence, and how to show it in another', () => {
  for (const id of CHECK_IDS) {
    for (const sentence of [CATALOG[id].fix, CATALOG[id].howToShow]) {
      expect(sentence).toMatch(/^[A-Z].*\.$/);
      expect(sentence).not.toMatch(/[.;] [A-Z]/);
    }
  }
});
