import {
  escapeHtml as e,
  type FormField,
  type PageModel,
  type ProductCard,
  type WorkflowCard,
} from '../../shared/embed/index';

/**
 * The widget's HTML. Everything that came from a workflow, a vendor or a user goes through
 * `e()`; the page script (assets/widget.js) writes later text with textContent only. No inline
 * script or style: the pages' CSP forbids both.
 */
function layout(title: string, body: string, data: Record<string, string> = {}): string {
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${e(v)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<link rel="stylesheet" href="/embed/assets/widget.css">
<script src="/embed/assets/widget.js" defer></script>
</head>
<body>
<main id="widget"${attrs}>
${body}
</main>
</body>
</html>
`;
}

const signIn = `<section class="signin" id="signin">
<p class="who" id="who">Not signed in.</p>
<button type="button" id="wallet-sign-in">Sign in with wallet</button>
<details class="paste"><summary>Use an access token instead</summary>
<input type="password" id="access-token" placeholder="act_…" autocomplete="off" aria-label="Access token">
<button type="button" id="token-sign-in">Use token</button>
</details>
<p class="balance" id="balance" hidden></p>
<p class="buy" id="buy-row" hidden><button type="button" id="buy">Buy 500 credits (5 USDC)</button> <span id="buy-status"></span></p>
<p class="error" id="signin-error" role="alert" hidden></p>
</section>`;

function header(name: string, description: string): string {
  return `<header><h1>${e(name)}</h1>${description ? `<p class="desc">${e(description)}</p>` : ''}</header>`;
}

function bundleLink(bundleId: string): string {
  return `<nav class="back"><a href="/embed/bundle/${e(bundleId)}" id="back">All tools</a></nav>`;
}

function workflowBody(item: WorkflowCard): string {
  return `${header(item.name, item.description)}
${signIn}
<section class="chat">
<ol class="log" id="log" aria-live="polite"></ol>
<div class="compose">
<textarea id="message" rows="2" maxlength="4000" placeholder="Write a message" aria-label="Message" disabled></textarea>
<button type="button" id="send" disabled>Send</button>
</div>
</section>`;
}

function field(actionSlug: string, f: FormField): string {
  const id = `f-${actionSlug}-${f.name}`;
  const common = `id="${e(id)}" name="${e(f.name)}" data-input="${f.input}"${f.required ? ' required data-required="1"' : ''}`;
  let control: string;
  if (f.input === 'select') {
    control = `<select ${common}>${f.required ? '' : '<option value=""></option>'}${f.options.map((o) => `<option value="${e(o)}"${o === f.defaultValue ? ' selected' : ''}>${e(o)}</option>`).join('')}</select>`;
  } else if (f.input === 'checkbox') {
    control = `<input type="checkbox" ${common}${f.defaultValue === 'true' ? ' checked' : ''}>`;
  } else if (f.input === 'json') {
    control = `<textarea rows="3" ${common} placeholder="JSON">${e(f.defaultValue)}</textarea>`;
  } else {
    const type = f.input === 'text' ? 'text' : 'number';
    const step = f.input === 'integer' ? ' step="1"' : f.input === 'number' ? ' step="any"' : '';
    control = `<input type="${type}"${step} ${common} value="${e(f.defaultValue)}">`;
  }
  return `<div class="field"><label for="${e(id)}">${e(f.label)}${f.required ? ' *' : ''}</label>${control}${f.description ? `<small>${e(f.description)}</small>` : ''}</div>`;
}

function productBody(item: ProductCard): string {
  const forms = item.actions
    .map(
      (a) => `<form class="action" data-action="${e(a.slug)}" data-credits="${a.credits}">
<h2>${e(a.name)}</h2>${a.description ? `<p class="desc">${e(a.description)}</p>` : ''}
${a.fields.map((f) => field(a.slug, f)).join('\n')}
<p class="price">Price: <strong>${a.credits}</strong> credits per call, paid from your balance.</p>
<button type="submit" class="pay" disabled>Pay ${a.credits} credits and run</button>
<pre class="result" hidden></pre>
</form>`,
    )
    .join('\n');
  return `${header(item.name, item.description)}
${signIn}
<section class="actions">${forms || '<p>This product has no actions.</p>'}</section>`;
}

function bundleBody(model: Extract<PageModel, { kind: 'bundle' }>): string {
  const entries = model.items
    .map((i) => {
      const href =
        i.kind === 'workflow'
          ? `/embed/${i.id}?bundle=${model.bundle._id}`
          : `/embed/product/${i.id}?bundle=${model.bundle._id}`;
      const price =
        i.kind === 'product' && i.actions.length
          ? `<span class="tag">${Math.min(...i.actions.map((a) => a.credits))}+ credits</span>`
          : '<span class="tag">chat</span>';
      return `<li><a class="pick" href="${e(href)}"><span class="name">${e(i.name)}</span> ${price}</a>${i.description ? `<p class="desc">${e(i.description)}</p>` : ''}</li>`;
    })
    .join('\n');
  return `${header(model.bundle.name, 'Pick a tool or an assistant.')}
${signIn}
<ul class="picker">${entries || '<li>Nothing is published here yet.</li>'}</ul>`;
}

export function renderPage(model: PageModel): string {
  const data = { kind: model.kind, bundle: model.bundle._id };
  switch (model.kind) {
    case 'workflow':
      return layout(model.item.name, `${bundleLink(model.bundle._id)}${workflowBody(model.item)}`, {
        ...data,
        item: model.item.id,
      });
    case 'product':
      return layout(model.item.name, `${bundleLink(model.bundle._id)}${productBody(model.item)}`, {
        ...data,
        item: model.item.id,
      });
    case 'bundle':
      return layout(model.bundle.name, bundleBody(model), data);
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  503: 'Unavailable',
};

/** The widget's error page: status and the error's own message (never a stack). */
export function renderErrorPage(status: number, message: string): string {
  const title = TITLES[status] ?? 'Something went wrong';
  return layout(title, `<header><h1>${e(title)}</h1></header><p class="error">${e(message)}</p>`, { kind: 'error' });
}
