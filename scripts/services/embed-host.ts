import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One `<script src="…/embed.js" data-…>` tag of a host page. */
export interface EmbedTag {
  workflow?: string;
  product?: string;
  bundle?: string;
  label?: string;
}

/** A stand-in for a customer's site: plain HTML with the loader tags, on loopback. */
export function hostPageHtml(baseUrl: string, tags: EmbedTag[], title = 'Embed test page'): string {
  const attr = (k: string, v: string | undefined) =>
    v ? ` data-${k}="${v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}"` : '';
  const scripts = tags
    .map(
      (t) =>
        `<script src="${baseUrl}/embed.js"${attr('workflow', t.workflow)}${attr('product', t.product)}${attr('bundle', t.bundle)}${attr('label', t.label)}></script>`,
    )
    .join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:16px Georgia,serif;margin:40px;color:#333;background:#fafaf5} button{font:18px Georgia,serif}</style></head>
<body><h1 id="host-title">${title}</h1><p>This page stands in for a customer's site. The widget launchers sit at the bottom right.</p>
<button id="host-button" type="button">A host page button</button>
${scripts}
</body></html>`;
}

export interface EmbedHostPage {
  url: string;
  origin: string;
  setPage(html: string): void;
  stop(): Promise<void>;
}

/** Serves `html` at every path of 127.0.0.1:<port> (0: any free port). */
export async function startEmbedHostPage(html: string, port = 0, host = '127.0.0.1'): Promise<EmbedHostPage> {
  let page = html;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    origin,
    setPage: (h) => {
      page = h;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
