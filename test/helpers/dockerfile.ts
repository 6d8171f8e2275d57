/** A Dockerfile read as the builders read it: parser directives, then stages of instructions. */

export interface Instruction {
  /** 1-based line of the instruction's first line. */
  line: number;
  keyword: string;
  /** Its flags (`--from=build` as `from: 'build'`, a bare `--link` as `link: ''`), in order. */
  flags: [string, string][];
  /** What follows the flags, whitespace folded. */
  args: string;
}

export interface Stage {
  name: string | null;
  /** The FROM line itself. */
  from: Instruction;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** `# syntax=...`, `# escape=...`, `# check=...` at the very top. */
  directives: Record<string, string>;
  stages: Stage[];
}

/** Continuation lines joined, comments dropped (the default escape character, `\`). */
export function parseDockerfile(text: string): Dockerfile {
  const lines = text.split('\n');
  const directives: Record<string, string> = {};
  let at = 0;
  for (; at < lines.length; at++) {
    const directive = /^#\s*([a-z]+)\s*=\s*(.*?)\s*$/i.exec(lines[at]!);
    if (!directive) break;
    directives[directive[1]!.toLowerCase()] = directive[2]!;
  }
  const stages: Stage[] = [];
  while (at < lines.length) {
    const start = at;
    let logical = lines[at]!;
    while (/\\\s*$/.test(logical) && at + 1 < lines.length) {
      at++;
      // Comment lines inside a continued instruction are dropped, as the builders do.
      if (/^\s*#/.test(lines[at]!)) {
        logical = `${logical.replace(/\\\s*$/, '')}\\`;
        continue;
      }
      logical = `${logical.replace(/\\\s*$/, ' ')}${lines[at]!}`;
    }
    at++;
    const trimmed = logical.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(trimmed) ?? [];
    const words = rest.split(/\s+/);
    const flags: [string, string][] = [];
    while (words[0]?.startsWith('--')) {
      const flag = words.shift()!.slice(2);
      const eq = flag.indexOf('=');
      flags.push(eq < 0 ? [flag, ''] : [flag.slice(0, eq), flag.slice(eq + 1)]);
    }
    const instruction: Instruction = { line: start + 1, keyword: keyword.toUpperCase(), flags, args: words.join(' ') };
    if (instruction.keyword === 'FROM')
      stages.push({
        name: /\sAS\s+(\S+)/i.exec(` ${instruction.args}`)?.[1] ?? null,
        from: instruction,
        instructions: [],
      });
    else if (stages.length === 0) throw new Error(`line ${start + 1}: ${instruction.keyword} before the first FROM`);
    else stages.at(-1)!.instructions.push(instruction);
  }
  return { directives, stages };
}

export const argsOf = (stage: Stage, keyword: string): string[] =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** An instruction's arguments as the shell-free words of ENV and LABEL: `K=V K2="V 2"` pairs. */
export function pairsOf(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const [, key, quoted, plain] of args.matchAll(/([\w.-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g))
    pairs[key!] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : plain!;
  return pairs;
}
