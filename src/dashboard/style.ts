/**
 * The CSS of the dashboard's server-only pages (the sign-in form, error pages): one inline
 * style element with the response's nonce. The signed-in page's CSS is bundled with its
 * script (src/dashboard/client/style.css).
 */

const BASE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px;
    --ink: #1d2b36; --muted: #51616d; --bg: #eef4f8; --card: #fff; --brand: #17659a; --brand-dark: #0f4f7a; --bad: #8a1c12; --bad-bg: #fdecea; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--ink); line-height: 1.4; }
  button, input { font: inherit; }
  button { padding: .45rem .8rem; font-weight: 600; color: #fff; background: var(--brand); border: 0; border-radius: 6px; cursor: pointer; }
  button:hover { background: var(--brand-dark); }
  input { padding: .4rem .55rem; border: 1px solid #71859a; border-radius: 6px; background: #fff; color: var(--ink); }
  :focus-visible { outline: 3px solid #0b3d91; outline-offset: 2px; }
  input:focus-visible { outline-offset: 0; }
  a { color: var(--brand); }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; overflow-wrap: anywhere; }
  .error { background: var(--bad-bg); color: var(--bad); border: 1px solid #f3b8b0; border-radius: 6px; padding: .6rem .8rem; }
`;

export const SIGN_IN_STYLE = `${BASE}
  body { min-height: 100vh; display: grid; place-items: center; padding: 1rem; }
  main { width: 100%; max-width: 24rem; min-width: 0; background: var(--card); border-radius: 12px; padding: clamp(1.25rem, 5vw, 2rem); box-shadow: 0 8px 30px rgba(20, 60, 90, .12); }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  p.lead { margin: 0 0 1.5rem; color: var(--muted); }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input { width: 100%; padding: .6rem .7rem; }
  form button { margin-top: 1.5rem; width: 100%; padding: .7rem; }
  .error { margin-bottom: 1rem; }
  .note { margin-top: 1.5rem; font-size: .85rem; color: var(--muted); }
`;
