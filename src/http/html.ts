/** Markup that is already safe to insert; only `html` and `trusted` make one. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * A template tag that escapes every interpolated value unless it is SafeHtml (nested `html`
 * results, arrays of them). Escaping is the default, so forgetting it is not possible.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Marks a constant of this code base (never request data) as markup, e.g. the page's CSS. */
export const trusted = (markup: string): SafeHtml => new SafeHtml(markup);

/**
 * A whole page: the shared head (no indexing, no favicon request) with the page's own CSS
 * inline (`style`) or its own head elements (`head`, e.g. a stylesheet and a script by URL)
 * and, when given, one inline script. With a `nonce`, the inline style and script carry it for
 * a Content-Security-Policy.
 */
export function htmlDocument(input: {
  title: string;
  body: SafeHtml;
  style?: string;
  head?: SafeHtml;
  nonce?: string;
  script?: string;
}): string {
  const nonce = input.nonce === undefined ? '' : html` nonce="${input.nonce}"`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${input.title}</title>
<link rel="icon" href="data:,">
${input.style === undefined ? '' : html`<style${nonce}>${trusted(input.style)}</style>`}
${input.head ?? ''}
</head>
<body>
${input.body}
${input.script === undefined ? '' : html`<script${nonce}>${trusted(input.script)}</script>`}
</body>
</html>
`.value;
}
