/**
 * The style sheet of `renderHtml`'s page, inline in it: system fonts only (nothing to fetch), a
 * light and a dark scheme, folded tool calls, reasoning and sub-conversations (private).
 *
 * @module
 */

/**
 * The page's CSS.
 *
 * @example
 * import { HTML_STYLE } from './_render-html-style.ts'
 * HTML_STYLE.includes('details') // true
 */
export const HTML_STYLE = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--dim:#667085;--line:#e3e6eb;--user:#eaf2ff;--tool:#f3f4f6;--err:#b42318;--errbg:#fef3f2;--accent:#3b5bdb;--sub:#f5f0ff;--mark:#fff7e0;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#14161b;--card:#1c1f26;--ink:#e6e8ee;--dim:#98a1b3;--line:#2c313b;--user:#1b2a44;--tool:#232730;--err:#ff8a80;--errbg:#3a1f1f;--accent:#8fa8ff;--sub:#26213a;--mark:#3a3320}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header.page{max-width:900px;margin:0 auto;padding:24px 20px 8px}
header.page h1{margin:0 0 4px;font-size:22px}
header.page p{margin:0;color:var(--dim);font-size:13px}
main{max-width:900px;margin:0 auto;padding:8px 20px 40px}
.turn{border-top:1px solid var(--line);padding-top:6px;margin-top:14px}
.turn-label{color:var(--dim);font-size:12px;text-transform:uppercase;letter-spacing:.06em;margin:2px 0 6px}
.msg{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 14px;margin:8px 0}
.msg.user{background:var(--user)}
.msg.system,.msg.synthetic,.msg.ephemeral{border-style:dashed}
.msg.display{background:transparent}
.msg>header,.compaction>header{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;font-size:13px;color:var(--dim);margin-bottom:4px}
.role{font-weight:600;color:var(--ink)}
.model{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;background:var(--tool);border-radius:4px;padding:0 5px}
.usage{font-size:12px}
.cost,.turn-cost{font-size:12px;font-variant-numeric:tabular-nums;color:var(--ink)}
.unpriced{color:var(--err)}
.turn-usage,.turn-cost{text-transform:none;letter-spacing:0;margin-left:8px}
.cleared{font-size:12px;color:var(--dim);margin:2px 0}
details.receipt{background:var(--card);border:1px solid var(--line);padding:2px 8px 6px;font-size:13px}
details.receipt .head{font-size:12px;margin:8px 0 2px;color:var(--dim);text-transform:uppercase;letter-spacing:.05em}
details.receipt ul{margin:0;padding-left:20px}
details.receipt p.ids{margin:0;line-height:1.7}
details.receipt p.ids code{background:var(--tool);border-radius:4px;padding:0 4px}
details.receipt .n{font-variant-numeric:tabular-nums}
.status.failed{color:var(--err)}
time{margin-left:auto;font-variant-numeric:tabular-nums}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;max-height:32em;overflow:auto}
.text code{background:var(--tool);border-radius:4px;padding:0 4px}
.text pre.code{background:var(--tool);border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:6px 0}
.text strong.h{display:inline-block;margin-top:4px}
details{border-radius:8px;margin:6px 0}
summary{cursor:pointer;padding:3px 8px;list-style-position:inside}
details.tool{background:var(--tool);border:1px solid var(--line)}
details.tool>summary code{color:var(--dim)}
details.tool>pre.args,details.tool>.result,details.tool>.subagent{margin:4px 10px 8px}
.tool-name{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.state{margin-left:8px;font-size:12px;color:var(--dim)}
.state.error,.result.error .label,.error{color:var(--err)}
.result .label{font-size:12px;color:var(--dim);text-transform:uppercase;letter-spacing:.05em}
.result.error pre{background:var(--errbg);border-radius:6px;padding:4px 6px}
details.thinking{border-left:3px solid var(--line);color:var(--dim);font-style:italic}
details.thinking>.text{padding:2px 10px 6px}
details.subagent{background:var(--sub);border:1px solid var(--line);padding:2px 6px}
details.subagent .msg{margin:6px 4px}
details.injected{color:var(--dim);font-size:13px;border:1px dashed var(--line)}
details.injected>.text{padding:2px 10px 6px}
.compaction{background:var(--mark);border:1px solid var(--line);border-radius:10px;padding:10px 14px;margin:14px 0}
.compaction .text{padding:2px 8px 6px}
.bookmark{display:flex;align-items:center;gap:10px;color:var(--dim);font-size:13px;margin:14px 0}
.bookmark::before,.bookmark::after{content:"";flex:1;border-top:1px solid var(--line)}
img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;margin:6px 0;image-rendering:auto}
.media{font-size:13px;color:var(--dim)}
a{color:var(--accent)}
`
