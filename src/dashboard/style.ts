/** The dashboard's CSS: one inline style element, no external assets (demo machines are often offline). */

const BASE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px;
    --ink: #1d2b36; --muted: #5b6b77; --line: #d8e2ea; --bg: #eef4f8; --card: #fff; --brand: #1f7ab8; --brand-dark: #17628f;
    --ok: #1e7b4a; --ok-bg: #e3f4ea; --warn: #8a5a00; --warn-bg: #fff3d6; --bad: #8a1c12; --bad-bg: #fdecea; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--ink); line-height: 1.4; }
  button, input, select { font: inherit; }
  button { padding: .45rem .8rem; font-weight: 600; color: #fff; background: var(--brand); border: 0; border-radius: 6px; cursor: pointer; }
  button:hover { background: var(--brand-dark); }
  button:disabled { opacity: .55; cursor: progress; }
  button.secondary { color: var(--brand); background: #fff; border: 1px solid #b8c7d3; }
  button.secondary:hover { background: #f3f8fb; }
  button.danger { background: #b3261e; }
  button.danger:hover { background: #8f1e18; }
  input, select { padding: .4rem .55rem; border: 1px solid #b8c7d3; border-radius: 6px; background: #fff; color: var(--ink); }
  input:focus, select:focus, button:focus-visible { outline: 2px solid var(--brand); outline-offset: 1px; }
  code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; overflow-wrap: anywhere; }
  .error { background: var(--bad-bg); color: var(--bad); border: 1px solid #f3b8b0; border-radius: 6px; padding: .6rem .8rem; }
`;

export const SIGN_IN_STYLE = `${BASE}
  body { min-height: 100vh; display: grid; place-items: center; }
  main { width: min(24rem, 92vw); background: var(--card); border-radius: 12px; padding: 2rem; box-shadow: 0 8px 30px rgba(20, 60, 90, .12); }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  p.lead { margin: 0 0 1.5rem; color: var(--muted); }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input { width: 100%; padding: .6rem .7rem; }
  form button { margin-top: 1.5rem; width: 100%; padding: .7rem; }
  .error { margin-bottom: 1rem; }
  .note { margin-top: 1.5rem; font-size: .8rem; color: #6b7b87; }
`;

export const DASHBOARD_STYLE = `${BASE}
  header.top { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: .8rem 1.5rem; background: #12486d; color: #fff; }
  header.top h1 { margin: 0; font-size: 1.3rem; }
  header.top .who { margin-left: auto; color: #d4e6f3; font-size: .9rem; }
  header.top form { margin: 0; }
  header.top button { background: #fff; color: #12486d; }
  .live { font-size: .85rem; color: #d4e6f3; display: inline-flex; align-items: center; gap: .35rem; }
  .live::before { content: ""; width: .6rem; height: .6rem; border-radius: 50%; background: #53d18b; }
  .live.offline::before { background: #ff8a80; }
  .wrap { padding: 1rem 1.5rem 2rem; max-width: 1500px; margin: 0 auto; }
  .card { background: var(--card); border-radius: 12px; padding: 1rem 1.25rem; box-shadow: 0 4px 18px rgba(20, 60, 90, .08); margin-bottom: 1rem; }
  .card h2 { margin: 0 0 .6rem; font-size: 1.15rem; }
  .card h3 { margin: 1rem 0 .4rem; font-size: .95rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
  #flash { margin-bottom: 1rem; }
  #flash:empty { display: none; }
  .flash { background: #e6f1fa; border: 1px solid #b7d5ec; border-radius: 8px; padding: .6rem .9rem; }
  .clock { display: flex; align-items: center; gap: 1.25rem; flex-wrap: wrap; }
  .clock-now { font-size: 1.5rem; font-weight: 700; font-variant-numeric: tabular-nums; }
  .clock-meta { color: var(--muted); font-size: .9rem; }
  .clock-buttons { display: flex; gap: .5rem; flex-wrap: wrap; margin-left: auto; }
  .badge { display: inline-block; padding: .1rem .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: #e8eef3; color: var(--muted); white-space: nowrap; }
  .badge.ok, .badge.delivered, .badge.confirmed, .badge.completed, .badge.home, .badge.connected { background: var(--ok-bg); color: var(--ok); }
  .badge.pending, .badge.running, .badge.away, .badge.frozen { background: var(--warn-bg); color: var(--warn); }
  .badge.failed, .badge.alert, .badge.disconnected { background: var(--bad-bg); color: var(--bad); }
  .locations { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 36rem), 1fr)); gap: 1rem; }
  .locations .card { margin-bottom: 0; }
  .location-head { display: flex; align-items: baseline; gap: .6rem; flex-wrap: wrap; }
  .location-head h2 { margin: 0; }
  .location-head .tz { color: var(--muted); font-size: .9rem; }
  .location-sub { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; margin-top: .5rem; }
  .home-away { margin-left: auto; display: flex; align-items: center; gap: .5rem; }
  .home-away button { padding: .25rem .6rem; font-size: .85rem; }
  .devices { display: flex; gap: .5rem; flex-wrap: wrap; margin: 0; padding: 0; list-style: none; font-size: .9rem; }
  .alerts { list-style: none; margin: 0; padding: 0; }
  .alerts li { display: flex; align-items: center; gap: .6rem; padding: .45rem .6rem; border-radius: 8px; background: var(--bad-bg); margin-bottom: .35rem; }
  .alerts li.hidden-alert { background: #f4f6f8; color: var(--muted); }
  .alerts li.none { background: none; padding: .2rem 0; }
  .alerts li button { margin-left: auto; padding: .25rem .7rem; }
  .none { color: var(--muted); font-style: italic; margin: .2rem 0; }
  .chart-head { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
  .chart-head h3 { margin-right: auto; }
  .toggle { display: inline-flex; border: 1px solid #b8c7d3; border-radius: 6px; overflow: hidden; }
  .toggle button { border-radius: 0; background: #fff; color: var(--brand); padding: .25rem .65rem; font-size: .85rem; }
  .toggle button[aria-pressed="true"] { background: var(--brand); color: #fff; }
  svg.chart { display: block; width: 100%; height: 230px; }
  svg.chart .bar { fill: var(--brand); }
  svg.chart .bar:hover { fill: #0f4f7a; }
  svg.chart .grid { stroke: #e3ebf1; stroke-width: 1; }
  svg.chart .axis { stroke: #9fb2c1; stroke-width: 1; }
  svg.chart text { font-size: 12px; fill: var(--muted); font-family: system-ui, sans-serif; }
  svg.chart text.title { font-weight: 600; }
  svg.chart text.empty { font-size: 14px; }
  .summary { display: grid; grid-template-columns: repeat(3, 1fr); gap: .5rem; margin-top: .6rem; }
  .summary div { background: #f4f8fb; border-radius: 8px; padding: .5rem .7rem; }
  .summary dt { font-size: .8rem; color: var(--muted); }
  .summary dd { margin: 0; font-size: 1.15rem; font-weight: 700; font-variant-numeric: tabular-nums; }
  .actions { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.25rem; }
  .actions form { display: flex; gap: .4rem; flex-wrap: wrap; align-items: center; margin: 0; }
  .actions select { flex: 1 1 100%; min-width: 0; }
  .actions label.inline { display: flex; align-items: center; gap: .4rem; flex: 1 1 9rem; min-width: 0; font-weight: 600; }
  .actions input[type=number] { flex: 1 1 5rem; min-width: 0; }
  .actions .hint { flex: 1 1 100%; font-size: .82rem; color: var(--muted); }
  .message { font-size: .9rem; margin: .4rem 0 0; min-height: 1.2em; }
  .message.bad { color: var(--bad); }
  .runs { list-style: none; padding: 0; margin: .5rem 0 0; font-size: .88rem; }
  .runs li { margin-bottom: .35rem; }
  .runs progress { width: 6rem; vertical-align: middle; }
  .runs .result { color: var(--muted); }
  .bottom { margin-top: 1rem; }
  table { width: 100%; border-collapse: collapse; font-size: .88rem; }
  th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); padding: .35rem .4rem; white-space: nowrap; }
  td { border-bottom: 1px solid var(--line); padding: .35rem .4rem; vertical-align: top; }
  td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
  td .detail { color: var(--muted); font-size: .8rem; }
  td code { overflow-wrap: anywhere; }
  .table-scroll { overflow-x: auto; }
  .count { color: var(--muted); font-weight: 400; font-size: .9rem; }
  @media (max-width: 700px) { .actions { grid-template-columns: 1fr; } }
`;
