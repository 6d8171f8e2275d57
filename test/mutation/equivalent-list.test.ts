import { readFileSync } from 'node:fs';

import { loadEquivalents, locate, nameOf, problemsOf } from '../../mutation/equivalent-mutants.mjs';

// mutation/equivalent.json is applied by the mutation run, which is not part of npm test: this
// keeps it from rotting. An edit that moves or removes an entry's code fails here, by name.
const readSource = (file: string): string => readFileSync(file, 'utf8');

describe('the list of equivalent mutants (mutation/equivalent.json)', () => {
  const entries = loadEquivalents();

  it('finds the code of every entry, once, in its file, with its mutators and reason', () => {
    expect(entries.length).toBeGreaterThan(0);
    expect(problemsOf(entries, readSource)).toEqual([]);
  });

  it('leaves no `// Stryker disable` comment in src/ that an entry already covers', () => {
    const doubled = entries.filter((entry) => {
      const { line } = locate(entry, readSource(entry.file));
      return line !== undefined && /Stryker disable/.test(readSource(entry.file).split('\n')[line - 2] ?? '');
    });
    expect(doubled.map(nameOf)).toEqual([]);
  });

  it('names an entry whose code is gone, moved into two places, or whose range runs backwards', () => {
    const source = 'const a = 1;\nif (a > 0) run();\nif (a > 0) run();\nconst b = 2;\n';
    const entry = {
      file: 'src/x.ts',
      code: 'const a = 1;',
      mutators: ['ConditionalExpression'],
      why: 'the same either way',
    };
    expect(locate(entry, source)).toEqual({ line: 1, lastLine: 1 });
    expect(locate({ ...entry, through: 'const b = 2;' }, source)).toEqual({ line: 1, lastLine: 4 });
    expect(locate({ ...entry, code: 'const c = 3;' }, source).problem).toBe(
      'src/x.ts: "const c = 3;": the code is no longer in src/x.ts; fix or remove the entry in mutation/equivalent.json',
    );
    expect(locate({ ...entry, code: 'if (a > 0) run();' }, source).problem).toMatch(/more than once/);
    expect(locate({ ...entry, code: 'const b = 2;', through: 'const a = 1;' }, source).problem).toMatch(
      /no longer follows/,
    );
    const problems = problemsOf([{ ...entry, mutators: ['Conditional'], why: '' }], () => source);
    expect(problems).toEqual([
      expect.stringContaining('Conditional is not one of Stryker'),
      'src/x.ts: "const a = 1;": says not why the mutant is equivalent',
    ]);
    expect(
      problemsOf([{ ...entry, file: 'src/none.ts' }], () => {
        throw new Error('ENOENT');
      }),
    ).toEqual(['src/none.ts: "const a = 1;": no file src/none.ts']);
  });
});
