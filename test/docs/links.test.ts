import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The README and every guide. */
const FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f)),
];

interface Link {
  file: string;
  line: number;
  target: string;
}

/** The lines of a Markdown file outside its fenced code blocks, with their 1-based numbers. */
function proseLines(file: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fenced = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) fenced = !fenced;
      else if (!fenced) lines.push({ text, line: i + 1 });
    });
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; a repeated one gets -1, -2... */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(file)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every inline link and image of a file's prose (not those inside `code`). */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  for (const { text, line } of proseLines(file)) {
    const code = [...text.matchAll(/`[^`]*`/g)].map((m) => [m.index, m.index + m[0].length] as const);
    for (const match of text.matchAll(/!?\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (code.some(([from, to]) => match.index >= from && match.index < to)) continue;
      links.push({ file, line, target: match[1]! });
    }
  }
  return links;
}

/** Why a relative link does not resolve, or null when it does (web links are not followed). */
function problemOf(link: Link): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return null;
  const [path = '', anchor] = link.target.split('#', 2);
  const resolved = path === '' ? link.file : normalize(join(dirname(link.file), decodeURIComponent(path)));
  if (resolved.startsWith('..')) return `${link.target} leads out of the repository`;
  if (!existsSync(resolved)) return `${link.target}: no ${resolved}`;
  if (anchor === undefined) return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return `${link.target}: an anchor into ${resolved}, which has no headings`;
  return anchorsOf(resolved).has(anchor) ? null : `${link.target}: ${resolved} has no heading #${anchor}`;
}

describe('the links of the README and the guides', () => {
  it.each(FILES)('%s: every relative link and anchor resolves', (file) => {
    const links = linksOf(file);
    const broken = links.flatMap((link) => {
      const problem = problemOf(link);
      return problem === null ? [] : [`${file}:${link.line}: ${problem}`];
    });
    expect(broken).toEqual([]);
  });

  it('are checked: a link to a missing file, a missing heading or outside the repository is a problem', () => {
    expect(problemOf({ file: 'README.md', line: 1, target: 'docs/no-such-guide.md' })).toMatch(
      /no docs\/no-such-guide\.md/,
    );
    expect(problemOf({ file: 'README.md', line: 1, target: '#no-such-heading' })).toMatch(
      /README\.md has no heading #no-such-heading/,
    );
    expect(problemOf({ file: 'docs/api.md', line: 1, target: '../../elsewhere.md' })).toMatch(/out of the repository/);
    expect(problemOf({ file: 'docs/api.md', line: 1, target: '../README.md#a-first-session-with-curl' })).toBeNull();
    expect(problemOf({ file: 'README.md', line: 1, target: 'https://example.com/#anything' })).toBeNull();
  });

  it('finds links with code in their text, and none inside code', () => {
    const links = linksOf('README.md').map((l) => l.target);
    expect(links).toContain('docs/README.md');
    expect(links).toContain('docs/cli.md');
  });
});

describe('the docs index (docs/README.md)', () => {
  it('links every guide', () => {
    const linked = new Set(linksOf('docs/README.md').map((l) => l.target.split('#')[0]));
    const guides = FILES.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md').map((f) =>
      f.slice('docs/'.length),
    );
    expect(guides.filter((g) => !linked.has(g))).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(linksOf('README.md').map((l) => l.target)).toContain('docs/README.md');
  });
});

/** The project's code, whose comments may point at a page of the docs. */
function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : codeFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}
/** This file names a missing page and the outside documents on purpose. */
const CODE = ['src', 'test', 'bench', 'scripts', 'mutation']
  .flatMap(codeFiles)
  .filter((file) => file !== join('test', 'docs', 'links.test.ts'));

describe('the documents that the code points at', () => {
  it('are pages of this repository, and the headings named exist', () => {
    const broken = CODE.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((text, i) =>
          [...text.matchAll(/\b((?:docs\/[\w.-]+\.md|README\.md)(?:#[\w-]+)?)/g)].flatMap((match) => {
            // Paths in code are from the repository's root, as from the README.
            const problem = problemOf({ file: 'README.md', line: i + 1, target: match[1]! });
            return problem === null ? [] : [`${file}:${i + 1}: ${problem}`];
          }),
        ),
    );
    expect(broken).toEqual([]);
  });

  it('are never documents outside it (the contract it was built to, a shared folder): a comment points at docs/ instead', () => {
    const outside = /\bCONTRACT(?:\.md)?\b|(?:\.\.\/|\/work\/)shared\//;
    const found = CODE.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((text, i) => (outside.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : [])),
    );
    expect(found).toEqual([]);
    expect(outside.test('// The drills of CONTRACT section 8')).toBe(true);
    expect(outside.test('const options = DEFAULT_CONTRACT_OPTIONS;')).toBe(false);
  });
});
