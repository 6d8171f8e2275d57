/**
 * The release's notes: the section of CHANGELOG.md for a tag (`v<version>`), as the release
 * workflow (.github/workflows/release.yml) publishes it. A section is `## [<version>] - <date>`
 * down to the next `## ` heading; it is releasable once dated (YYYY-MM-DD, not `unreleased`), and
 * the tag must name package.json's version. Headings of a kind with nothing under them are left out.
 */
export function releaseNotes(changelog: string, tag: string, packageVersion: string): string {
  const version = /^v(\d+\.\d+\.\d+(?:-[\w.]+)?)$/.exec(tag)?.[1];
  if (version === undefined) throw new Error(`the tag ${JSON.stringify(tag)} is not v<major>.<minor>.<patch>`);
  if (version !== packageVersion)
    throw new Error(
      `the tag ${tag} is not package.json's version (${packageVersion}): bump the version before tagging`,
    );
  const lines = changelog.split('\n');
  const heading = new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\](?: - (.*))?$`);
  const start = lines.findIndex((line) => heading.test(line));
  const date = start < 0 ? undefined : heading.exec(lines[start] ?? '')?.[1]?.trim();
  if (start < 0) throw new Error(`CHANGELOG.md has no section "## [${version}] - <date>"`);
  if (date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(date))
    throw new Error(
      `CHANGELOG.md's section for ${version} is dated "${date ?? ''}", not YYYY-MM-DD: date it (the day of the release) before tagging`,
    );
  const end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  const body = lines.slice(start + 1, end < 0 ? undefined : end);
  // Link definitions at the end of the file ([0.4.0]: https://...) belong to no section.
  const isTrailing = (line: string): boolean => line.trim() === '' || /^\[[^\]]+\]: \S+$/.test(line);
  while (body.length > 0 && isTrailing(body.at(-1) ?? '')) body.pop();

  // Without the headings that have nothing under them before the next heading.
  const kept: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i] ?? '';
    if (/^### /.test(line)) {
      const next = body.findIndex((l, j) => j > i && /^#{2,3} /.test(l));
      const under = body.slice(i + 1, next < 0 ? undefined : next);
      if (under.every((l) => l.trim() === '')) {
        i = (next < 0 ? body.length : next) - 1;
        continue;
      }
    }
    kept.push(line);
  }
  const text = kept.join('\n').trim();
  if (text === '') throw new Error(`CHANGELOG.md's section for ${version} is empty`);
  return `${text}\n`;
}
