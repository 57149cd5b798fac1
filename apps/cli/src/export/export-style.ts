/** The stylesheet of an exported session: inline, light and dark by the viewer's preference. */
export const EXPORT_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --bg: #ffffff; --panel: #f6f8fa;
  --border: #d0d7de; --accent: #0969da; --add: #1a7f37; --add-bg: #dafbe1; --del: #cf222e; --del-bg: #ffebe9; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --bg: #0d1117; --panel: #161b22;
  --border: #30363d; --accent: #4493f8; --add: #3fb950; --add-bg: #12261e; --del: #f85149; --del-bg: #25171c; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 2rem 1.25rem 4rem; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
header h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
.meta { color: var(--muted); font-size: .85rem; margin: 0 0 1.5rem; }
.meta code { font-size: .85rem; }
table.usage { border-collapse: collapse; margin: .5rem 0 1.5rem; font-size: .85rem; }
table.usage td, table.usage th { border: 1px solid var(--border); padding: .2rem .6rem; text-align: right; }
.turn { border-top: 1px solid var(--border); padding: 1rem 0; }
.turn-status { color: var(--del); font-size: .85rem; }
.user { background: var(--panel); border-left: 3px solid var(--accent); padding: .6rem .9rem; margin: .5rem 0;
  white-space: pre-wrap; border-radius: 4px; }
.user img { max-width: 100%; display: block; margin-top: .5rem; }
.role { color: var(--muted); font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; }
.assistant { margin: .5rem 0; }
details { border: 1px solid var(--border); border-radius: 6px; margin: .5rem 0; background: var(--panel); }
details > summary { cursor: pointer; padding: .35rem .7rem; font-size: .9rem; }
details > .body { padding: .2rem .8rem .6rem; }
.tool .status-completed { color: var(--add); } .tool .status-failed { color: var(--del); }
.tool .status-declined, .tool .status-inProgress { color: var(--muted); }
.reasoning .body { color: var(--muted); white-space: pre-wrap; }
pre { background: var(--bg); border: 1px solid var(--border); border-radius: 4px; padding: .5rem .7rem;
  overflow-x: auto; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.diff span { display: block; }
.diff .diff-add { color: var(--add); background: var(--add-bg); }
.diff .diff-del { color: var(--del); background: var(--del-bg); }
.diff .diff-hunk { color: var(--accent); }
.diff-file { font-weight: 600; margin: .4rem 0 .2rem; font-size: .85rem; }
.marker { border: 1px dashed var(--border); border-radius: 6px; padding: .5rem .8rem; margin: .75rem 0; }
.marker > .role { display: block; margin-bottom: .25rem; }
.system pre { white-space: pre-wrap; }
.hljs-keyword, .hljs-built_in, .hljs-literal { color: #cf222e; } .hljs-string, .hljs-regexp { color: #0a3069; }
.hljs-comment { color: var(--muted); font-style: italic; } .hljs-number { color: #0550ae; }
.hljs-title, .hljs-function { color: #8250df; } .hljs-attr, .hljs-property { color: #0550ae; }
@media (prefers-color-scheme: dark) { .hljs-keyword, .hljs-built_in, .hljs-literal { color: #ff7b72; }
  .hljs-string, .hljs-regexp { color: #a5d6ff; } .hljs-number, .hljs-attr, .hljs-property { color: #79c0ff; }
  .hljs-title, .hljs-function { color: #d2a8ff; } }
`;
