/**
 * The console's one stylesheet, served at /console.css (cached for an hour). Plain CSS: system
 * fonts, no images, no web fonts, readable on a small screen and when printed.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #5f6b76; --line: #d8dee4;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --link: #0b5cad; --soft: #f4f6f8; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0;
  --line: #30363d; --ok: #3fb950; --warn: #d29922; --bad: #f85149; --link: #58a6ff; --soft: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1.2rem;
  padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--soft); }
header .brand { font-weight: 600; }
nav a { margin-right: .9rem; }
nav a[aria-current="page"] { font-weight: 600; text-decoration: underline; }
header form { margin-left: auto; }
main { padding: 1rem; max-width: 72rem; }
h1 { font-size: 1.35rem; margin: .2rem 0 .8rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
a { color: var(--link); }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted, .zone { color: var(--muted); font-size: .85rem; }
.verdict { font-size: 1.6rem; font-weight: 700; margin: .2rem 0 .4rem; }
.healthy { color: var(--ok); } .degraded { color: var(--warn); } .person { color: var(--bad); }
.tag { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-size: .8rem;
  border: 1px solid currentColor; }
.processed { color: var(--ok); } .failed, .rejected { color: var(--bad); }
.held, .processing, .released, .duplicate { color: var(--warn); }
.notice { padding: .6rem .8rem; border: 1px solid var(--line); border-left: 4px solid var(--link);
  background: var(--soft); margin: 0 0 1rem; }
.notice.error { border-left-color: var(--bad); }
form.inline { display: inline; }
p.paused { border-left: 4px solid var(--warn); padding: .4rem .8rem; background: var(--soft); }
button { font: inherit; padding: .25rem .7rem; border-radius: .3rem; border: 1px solid var(--line);
  background: var(--bg); color: var(--fg); cursor: pointer; }
button.primary { background: var(--link); border-color: var(--link); color: #fff; }
button.danger { color: var(--bad); border-color: var(--bad); }
input[type=text], input[type=password] { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line);
  border-radius: .3rem; background: var(--bg); color: var(--fg); min-width: 18rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
pre { background: var(--soft); padding: .6rem; overflow-x: auto; font-size: .85rem; }
ul.reasons { margin: .2rem 0 1rem; padding-left: 1.2rem; }
summary { cursor: pointer; margin: 1.2rem 0 .4rem; font-weight: 600; }
`;
