import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Guide {
  /** The file's name in docs/, e.g. readiness.md. */
  file: string;
  /** Its first heading. */
  title: string;
}

/** A heading's anchor as GitHub makes it (and the readiness report's `docs` links use): `### errors.rate-limit` → errorsrate-limit. */
export const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/**
 * The guides of docs/ as the package ships them (package.json `files` has docs/, and the image
 * copies it beside the server's bundle): listed once, read when asked for. A sandbox started
 * without them (a copy of dist/ alone) lists none, and says so where a guide is asked for.
 */
export class Guides {
  #listed: Guide[] | null = null;

  constructor(readonly dir: string) {}

  list(): readonly Guide[] {
    this.#listed ??= existsSync(this.dir)
      ? readdirSync(this.dir)
          .filter((file) => file.endsWith('.md'))
          .sort()
          .map((file) => ({ file, title: titleOf(readFileSync(join(this.dir, file), 'utf8'), file) }))
      : [];
    return this.#listed;
  }

  /** The text of a listed guide; null for a name that is not one of them. */
  async read(file: string): Promise<string | null> {
    if (!this.list().some((g) => g.file === file)) return null;
    return readFile(join(this.dir, file), 'utf8');
  }

  /**
   * The section of a guide under the heading whose anchor is `anchor`, down to the next heading
   * of the same level or above; null when the guide or the heading is not there.
   */
  async section(file: string, anchor: string): Promise<string | null> {
    const text = await this.read(file);
    if (text === null) return null;
    const lines = text.split('\n');
    let start = -1;
    let level = 0;
    let fenced = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      if (line.startsWith('```')) fenced = !fenced;
      const heading = fenced ? null : /^(#{1,6})\s+(.*)$/.exec(line);
      if (!heading) continue;
      const depth = heading[1]?.length ?? 0;
      if (start < 0) {
        if (anchorOf(heading[2] ?? '') === anchor) {
          start = i;
          level = depth;
        }
      } else if (depth <= level) {
        return lines.slice(start, i).join('\n').trim();
      }
    }
    return start < 0 ? null : lines.slice(start).join('\n').trim();
  }
}

function titleOf(text: string, file: string): string {
  const heading = /^#\s+(.+)$/m.exec(text);
  return heading?.[1]?.trim() ?? file;
}
