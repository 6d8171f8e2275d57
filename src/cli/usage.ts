import type { Command, Option } from 'commander';

import { nearMatch } from '../core/near-match.js';

/** An option given before its command (`water-sandbox --api-key K clock`) that the command takes. */
export interface MovableOption {
  long: string;
  takesValue: boolean;
}

/**
 * Moves the options of `movable` that come before the command to after it, where the command
 * takes them: `--api-key K clock advance 1h` → `clock advance 1h --api-key K`. Stops at the
 * first word that is not one of them, so anything else stays where it was given.
 */
export function moveLeadingOptions(argv: readonly string[], movable: readonly MovableOption[]): string[] {
  const moved: string[] = [];
  let i = 0;
  for (let arg = argv[i]; arg !== undefined; arg = argv[i]) {
    const option = movable.find((o) => arg === o.long || arg.startsWith(`${o.long}=`));
    if (!option) break;
    const inline = arg.includes('=');
    moved.push(...argv.slice(i, option.takesValue && !inline ? i + 2 : i + 1));
    i += option.takesValue && !inline ? 2 : 1;
  }
  if (moved.length === 0) return [...argv];
  const rest = argv.slice(i);
  // After `--` everything is an operand: the moved options go before it.
  const end = rest.indexOf('--');
  return end < 0 ? [...rest, ...moved] : [...rest.slice(0, end), ...moved, ...rest.slice(end)];
}

const ALWAYS_KNOWN = ['-h', '--help'];

/** The options a word at `command` may be: its own and its ancestors', and, before a subcommand is named, its subcommands'. */
function optionsAt(chain: readonly Command[], command: Command): Option[] {
  return [...chain.flatMap((c) => c.options), ...command.commands.flatMap((c) => c.options)];
}

export interface UnknownOption {
  /** As given, without a value: `--locaton`. */
  option: string;
  /** The command it was given to. */
  command: Command;
  /** The option of that command it most likely stands for: `--location`. */
  suggestion: string | undefined;
}

/**
 * The first option in `argv` that the command it is given to does not take, before anything
 * else is checked: so `trigger highLeak --locaton X` names `--locaton` (and `--location`)
 * rather than only the missing `--location`. Walks the command tree as commander does; null
 * when every option is known, and at `--help`, which answers whatever follows.
 */
export function findUnknownOption(program: Command, argv: readonly string[]): UnknownOption | null {
  const chain: Command[] = [program];
  let command = program;
  for (let i = 0, arg = argv[0]; arg !== undefined; arg = argv[++i]) {
    if (arg === '--') return null;
    if (arg.startsWith('-') && arg !== '-') {
      const name = arg.startsWith('--') ? arg.replace(/=.*$/s, '') : arg.slice(0, 2);
      if (ALWAYS_KNOWN.includes(name)) return null;
      const known = optionsAt(chain, command);
      const option = known.find((o) => o.long === name || o.short === name);
      if (!option) {
        const longs = [...new Set(known.flatMap((o) => (o.long === undefined || o.hidden ? [] : [o.long])))];
        return { option: name, command, suggestion: nearMatch(name, longs) };
      }
      const next = argv[i + 1];
      const inline = arg.startsWith('--') ? arg.includes('=') : arg.length > 2;
      if (!inline && next !== undefined && (option.required || (option.optional && !next.startsWith('-')))) i++;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub) {
      chain.push(sub);
      command = sub;
    }
  }
  return null;
}
