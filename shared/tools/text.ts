/** Text tools shared by the built-in handlers and the demo vendor: pure functions. */

export function textStats(text: string, wordsPerMinute = 200) {
  const words = text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const sentences = text.split(/[.!?]+(?:\s|$)/).filter((s) => s.trim().length > 0).length;
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim().length > 0).length;
  const wpm = Number.isFinite(wordsPerMinute) && wordsPerMinute > 0 ? wordsPerMinute : 200;
  const unique = new Set(words.map((w) => w.toLowerCase())).size;
  return {
    characters: [...text].length,
    words: words.length,
    unique_words: unique,
    sentences,
    paragraphs,
    average_word_length: words.length
      ? Number((words.reduce((n, w) => n + [...w].length, 0) / words.length).toFixed(2))
      : 0,
    reading_time_seconds: Math.ceil((words.length / wpm) * 60),
    words_per_minute: wpm,
  };
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'()\]]+/gi;
const MARKDOWN_LINK = /\[([^\]]{0,500})\]\((https?:\/\/[^\s)]+)\)/gi;
const HTML_LINK = /<a\s[^>]*href\s*=\s*["'](https?:\/\/[^"']+)["'][^>]*>([\s\S]{0,500}?)<\/a>/gi;

/** Links in plain text, Markdown or HTML: each URL once, with its text where the markup gives one. */
export function extractLinks(text: string) {
  const seen = new Map<string, { url: string; text: string | null; host: string }>();
  const add = (raw: string, label: string | null) => {
    const url = raw.replace(/[.,;:!?]+$/, '');
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return;
    }
    const known = seen.get(url);
    if (!known) seen.set(url, { url, text: label, host });
    else if (!known.text && label) known.text = label;
  };
  for (const m of text.matchAll(MARKDOWN_LINK)) add(m[2]!, m[1]!.trim() || null);
  for (const m of text.matchAll(HTML_LINK)) add(m[1]!, m[2]!.replace(/<[^>]*>/g, '').trim() || null);
  for (const m of text.matchAll(URL_PATTERN)) add(m[0], null);
  const links = [...seen.values()];
  const hosts = [...new Set(links.map((l) => l.host))];
  return { count: links.length, links, hosts };
}
