/**
 * A Slack Block Kit message drawn as HTML, the way Slack lays it out (header, sections with
 * mrkdwn, context line, buttons): to preview and document what a channel receives. Every text is
 * escaped first; only the few mrkdwn marks Benchboard writes (*bold*, `code`, :emoji:) are drawn.
 */

interface TextObject {
  type: string;
  text: string;
}
interface Block {
  type: string;
  text?: TextObject;
  elements?: { type: string; text?: TextObject | string; url?: string }[];
}

const EMOJI: Record<string, string> = {
  ":red_circle:": "🔴",
  ":warning:": "⚠️",
  ":chart_with_downwards_trend:": "📉",
  ":bar_chart:": "📊",
  ":electric_plug:": "🔌",
  ":white_check_mark:": "✅",
  ":bell:": "🔔",
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Slack's mrkdwn arrives already &-escaped; undo that, escape for HTML, then draw the marks. */
function mrkdwn(text: string): string {
  const plain = text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return escapeHtml(plain)
    .replace(/:[a-z_]+:/g, (m) => EMOJI[m] ?? m)
    .replace(/\*([^*\n]+)\*/g, "<b>$1</b>")
    .replace(/`([^`\n]+)`/g, "<code>$1</code>")
    .replace(/\n/g, "<br>");
}

function textHtml(t: TextObject | string | undefined): string {
  if (!t) return "";
  if (typeof t === "string") return escapeHtml(t);
  return t.type === "mrkdwn" ? mrkdwn(t.text) : escapeHtml(t.text);
}

export function blockKitHtml(message: { text?: string; blocks?: readonly unknown[] }, sender = "Benchboard"): string {
  const blocks = ((message.blocks ?? []) as Block[])
    .map((b) => {
      if (b.type === "header") return `<div class="h">${textHtml(b.text)}</div>`;
      if (b.type === "section") return `<div class="s">${textHtml(b.text)}</div>`;
      if (b.type === "context")
        return `<div class="c">${(b.elements ?? []).map((e) => textHtml(e as TextObject)).join(" ")}</div>`;
      if (b.type === "actions")
        return `<div class="a">${(b.elements ?? [])
          .map((e) => `<a class="btn" href="${escapeHtml(e.url ?? "#")}">${textHtml(e.text)}</a>`)
          .join("")}</div>`;
      if (b.type === "divider") return "<hr>";
      return "";
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slack message preview</title><style>
body{font-family:Lato,"Helvetica Neue",Arial,sans-serif;background:#fff;margin:0;padding:24px;color:#1d1c1d}
.msg{display:flex;gap:10px;max-width:760px}.av{width:36px;height:36px;border-radius:6px;background:#4f46e5;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center}
.who{font-weight:900;font-size:15px}.app{font-size:10px;background:#e8e8e8;color:#616061;border-radius:3px;padding:1px 3px;margin-left:4px;font-weight:700}
.h{font-size:18px;font-weight:900;margin:6px 0}.s{font-size:15px;line-height:1.47;margin:6px 0}.c{font-size:12px;color:#616061;margin:6px 0}
code{font-size:12px;background:#f6f6f6;border:1px solid #ddd;border-radius:3px;padding:0 3px;color:#e01e5a}
.a{margin-top:10px;display:flex;gap:8px}.btn{border:1px solid #bbb;border-radius:4px;padding:4px 12px;font-size:13px;font-weight:700;color:#1d1c1d;text-decoration:none}
</style></head><body><div class="msg" role="article" aria-label="Slack message"><div class="av" aria-hidden="true">B</div><div><div class="who">${escapeHtml(sender)}<span class="app">APP</span></div>
${blocks}
</div></div></body></html>`;
}
