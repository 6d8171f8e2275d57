import { readFileSync } from 'node:fs';

/** What a block of the docs promises: what the shell prints, or what the receiver gets, while it runs. */
export interface DocPromise {
  kind: 'output' | 'receiver';
  /** 1-based line where the promise is written. */
  line: number;
  text: string;
}

/** A fenced shell block of a Markdown file, and what its info string says about running it. */
export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** `sh skip`: shown to readers but not run by the docs test (it starts a server, or needs Docker). */
  skip: boolean;
  /** `sh fails`: shows an HTTP error on purpose; the test runs it and expects the error. */
  fails: boolean;
  /**
   * What it promises: each `# → ` comment line in it (a line it prints), and each ```json output
   * or ```text output block after it (before the next shell block; outputs separated by a blank
   * line are looked for one after the other), and ```text receiver blocks.
   */
  promises: DocPromise[];
}

const FENCE = /^(\s*)```(\w*)(?:\s+(.*))?$/;

/**
 * The ```sh blocks of a Markdown file, in order (indented ones inside lists included), with the
 * promises written after each. Other languages (json, js, text) are output or code to read, not
 * commands; those marked `output` or `receiver` are what the shell block before them promises.
 */
export function shellBlocks(file: string): ShellBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    const words = (open[3] ?? '').split(/\s+/);
    const code = body.join('\n');
    if (open[2] === 'sh') {
      const inline = body.flatMap((text, k) =>
        /^\s*# → /.test(text) ? [{ kind: 'output' as const, line: i + 2 + k, text: text.replace(/^\s*# → /, '') }] : [],
      );
      blocks.push({
        file,
        line: i + 1,
        code,
        skip: words.includes('skip'),
        fails: words.includes('fails'),
        promises: inline,
      });
    } else if (words.includes('output') || words.includes('receiver')) {
      const owner = blocks.at(-1);
      const kind = words.includes('receiver') ? 'receiver' : 'output';
      // Outputs separated by a blank line are separate promises, each looked for after the one before.
      const promises: DocPromise[] = (kind === 'output' ? code.split(/\n\s*\n/) : [code]).map((text) => ({
        kind,
        line: i + 1,
        text,
      }));
      if (owner) owner.promises.push(...promises);
      else blocks.push({ file, line: i + 1, code: '', skip: true, fails: false, promises });
    }
    i = j;
  }
  return blocks;
}

/** What a runnable block must not contain: it has to paste and run as written. */
export function pasteProblems(block: ShellBlock): string[] {
  const problems: string[] = [];
  if (block.skip && block.promises.length > 0)
    problems.push('a promise (# →, an output or receiver block) of a block that is not run: nothing checks it');
  const withoutComments = block.code.replace(/#[^\n'"]*$/gm, '');
  const placeholder = /<[a-zA-Z][\w -]*>/.exec(withoutComments);
  if (placeholder && !/<<-?\s*'?\w+'?/.test(withoutComments))
    problems.push(`a placeholder ${placeholder[0]} (capture the value into a shell variable from an earlier command)`);
  if (/\bdate\s+(-d|--date)\b/.test(withoutComments))
    problems.push('GNU-only `date -d` (not on macOS); use node or a fixed date');
  if (/\bsed\s+-i\s/.test(withoutComments)) problems.push('`sed -i` differs between GNU and BSD');
  // The sandbox's address only in the default of $API (API=${API:-http://localhost:8080}), so the test can point the block elsewhere.
  if (/localhost:8080|127\.0\.0\.1:8080/.test(withoutComments.replace(/\$\{API:-[^}]*\}/g, '')))
    problems.push('a literal sandbox address; use $API (set once as API=${API:-http://localhost:8080})');
  // A refused connection must say so: curl -s alone prints nothing, and the JSON helper then has nothing to read.
  if (/\bcurl\s+-s(?![A-Za-z]*S)\b/.test(withoutComments))
    problems.push('`curl -s` hides a refused connection; use `curl -sS`');
  return problems;
}

/**
 * Where `promised` shows in `actual`, from `from` on: the index just after it, or -1. `…` (or
 * `...`) stands for any text within a line; any run of white space for any white space, none
 * included, so a JSON answer printed on one line matches the same JSON laid out over several.
 * The promise starts at the start of a line and ends at the end of one; with `whole`, it must
 * be all of `actual` and nothing else.
 */
export function findShown(
  actual: string,
  promised: string,
  { from = 0, whole = false }: { from?: number; whole?: boolean } = {},
): number {
  const pattern = promised
    .trim()
    .split(/(…|\.\.\.|\s+)/)
    .map((part) =>
      part === '…' || part === '...'
        ? '.*?'
        : /^\s+$/.test(part)
          ? '\\s*'
          : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  const regex = new RegExp(whole ? `^\\s*${pattern}\\s*$` : `(?:^|\\n)[ \\t]*${pattern}(?=[ \\t\\r]*(?:\\n|$))`, 'g');
  regex.lastIndex = from;
  const match = regex.exec(actual);
  return match ? match.index + match[0].length : -1;
}
