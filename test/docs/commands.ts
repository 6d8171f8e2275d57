import { readFileSync } from 'node:fs';

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
}

/**
 * The ```sh blocks of a Markdown file, in order (indented ones inside lists included). Other
 * languages (json, js, text) are output or code to read, not commands.
 */
export function shellBlocks(file: string): ShellBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```sh(?:\s+(.*))?$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    const words = (open[2] ?? '').split(/\s+/);
    blocks.push({ file, line: i + 1, code: body.join('\n'), skip: words.includes('skip'), fails: words.includes('fails') });
    i = j;
  }
  return blocks;
}

/** What a runnable block must not contain: it has to paste and run as written. */
export function pasteProblems(block: ShellBlock): string[] {
  const problems: string[] = [];
  const withoutComments = block.code.replace(/#[^\n'"]*$/gm, '');
  const placeholder = /<[a-zA-Z][\w -]*>/.exec(withoutComments);
  if (placeholder && !/<<-?\s*'?\w+'?/.test(withoutComments)) problems.push(`a placeholder ${placeholder[0]} (capture the value into a shell variable from an earlier command)`);
  if (/\bdate\s+(-d|--date)\b/.test(withoutComments)) problems.push('GNU-only `date -d` (not on macOS); use node or a fixed date');
  if (/\bsed\s+-i\s/.test(withoutComments)) problems.push('`sed -i` differs between GNU and BSD');
  // The sandbox's address only in the default of $API (API=${API:-http://localhost:8080}), so the test can point the block elsewhere.
  if (/localhost:8080|127\.0\.0\.1:8080/.test(withoutComments.replace(/\$\{API:-[^}]*\}/g, ''))) problems.push('a literal sandbox address; use $API (set once as API=${API:-http://localhost:8080})');
  return problems;
}
