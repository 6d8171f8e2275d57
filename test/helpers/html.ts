/** Reading the sandbox's HTML pages in tests: escaped text back to what it says, and the CSRF token of a form. */

/** The text as written before the page escaped it (the five characters the pages escape, and the backtick). */
export const unescapeHtml = (text: string): string =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The CSRF token of the page's form (its hidden csrf_token field); throws, showing the page, when it has none. */
export function csrfTokenOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no csrf_token field in:\n${html}`);
  return unescapeHtml(match[1]!);
}
