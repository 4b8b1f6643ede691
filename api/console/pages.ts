import type { ConsoleSession, GraphLayout, OperatorSession } from '../../shared/console/index';
import { MAX_OUTPUT_CHARS, RUN_STATUSES } from '../../shared/console/index';
import { escapeHtml as e } from '../../shared/embed/index';
import type { PublicSigningKey, RunNodeRecord, RunSummary } from '../../shared/webhook-runs/index';
import { barChart, graphChart, stackedChart } from './charts';

/**
 * The console's HTML, rendered on the server. Everything that came from the store goes through
 * `e()`. No script and no inline style: the pages' CSP forbids both, and every action is a plain
 * form post carrying the session's form token.
 */

const NAV: Array<[string, string]> = [
  ['/console', 'Overview'],
  ['/console/runs', 'Runs'],
  ['/console/budgets', 'Budgets & groups'],
  ['/console/workflows', 'Workflows'],
  ['/console/callbacks', 'Callbacks'],
  ['/console/approvals', 'Approvals'],
];

const iso = (d: Date | null | undefined) => (d ? d.toISOString().replace('.000Z', 'Z') : '—');
const ms = (a: Date | null | undefined, b: Date | null | undefined) =>
  a && b ? `${Math.max(0, b.getTime() - a.getTime())} ms` : '—';

const OPERATOR_NAV: Array<[string, string]> = [
  ['/console/operator', 'Catalog'],
  ['/console/operator/settlements', 'x402 settlements'],
  ['/console/operator/ledger', 'Ledger'],
];

function navOf(s: ConsoleSession | OperatorSession, active: string): string {
  const [who, links] =
    'workspaceId' in s
      ? [`${e(s.workspaceName)} <small>${e(s.workspaceId)}</small>`, NAV]
      : [`Service operator <small>${e(s.label ?? s.operatorKeyId)}</small>`, OPERATOR_NAV];
  return `<nav class="top"><span class="ws" id="workspace">${who}</span>
${links.map(([href, label]) => `<a href="${href}"${href === active ? ' class="on" aria-current="page"' : ''}>${e(label)}</a>`).join('\n')}
<form method="post" action="/console/sign-out" class="inline">${hidden(s)}<button type="submit" id="sign-out">Sign out</button></form></nav>`;
}

function layout(title: string, body: string, s?: ConsoleSession | OperatorSession, active = ''): string {
  const nav = s ? navOf(s, active) : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)} · Console</title>
<link rel="stylesheet" href="/console/assets/console.css">
</head>
<body>
${nav}
<main id="console">
<h1>${e(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function hidden(s: { formToken: string }): string {
  return `<input type="hidden" name="_form" value="${e(s.formToken)}">`;
}

function notice(text: string | undefined): string {
  return text ? `<p class="notice" id="notice" role="status">${e(text)}</p>` : '';
}

export function signInPage(formToken: string, error?: string): string {
  return layout(
    'Sign in',
    `${error ? `<p class="error" role="alert" id="error">${e(error)}</p>` : ''}
<form method="post" action="/console/sign-in" class="card" id="sign-in">
<input type="hidden" name="_form" value="${e(formToken)}">
<label for="api_key">Workspace API key or operator key</label>
<input type="password" id="api_key" name="api_key" placeholder="wak_… or opk_…" autocomplete="off" required maxlength="200">
<button type="submit">Sign in</button>
<p class="hint">The key is exchanged for a session cookie; it is not kept in this page or in the browser.</p>
</form>`,
  );
}

/** `home`: the signed-in session's first page (a workspace's overview, the operator's catalog); none: the sign-in form. */
export function errorPage(status: number, title: string, message: string, home: string | null): string {
  return layout(
    title,
    `<p class="error" id="error" data-status="${status}">${e(message)}</p>
<p><a href="${home ?? '/console/sign-in'}">${home ? 'Back to the console' : 'Sign in'}</a></p>`,
  );
}

function statusTag(status: string): string {
  return `<span class="tag st-${e(status)}">${e(status)}</span>`;
}

function runRows(runs: readonly RunSummary[]): string {
  if (!runs.length) return '<tr><td colspan="7">No runs.</td></tr>';
  return runs
    .map(
      (r) =>
        `<tr data-run="${e(r._id)}"><td><a href="/console/runs/${e(r._id)}">${e(r._id)}</a></td><td>${statusTag(r.status)}</td><td>${e(r.workflow_id)}${r.workflow_version ? ` <small>v${e(r.workflow_version)}</small>` : ''}</td><td>${e(r.group_id)}</td><td>${iso(r.created_at)}</td><td>${ms(r.started_at, r.completed_at ?? r.failed_at ?? r.cancelled_at ?? r.setup_required_at)}</td><td>${statusTag(r.callback_status)}</td></tr>`,
    )
    .join('\n');
}

const RUN_HEAD =
  '<thead><tr><th>Run</th><th>Status</th><th>Workflow</th><th>Group</th><th>Created</th><th>Took</th><th>Callback</th></tr></thead>';

export function overviewPage(
  s: ConsoleSession,
  o: {
    credits: number;
    spendPerDay: Array<{ day: string; credits: number }>;
    runsPerHour: Array<{ hour: string; counts: Record<string, number> }>;
    runsCounted: number;
    failing: RunSummary[];
    nearLimits: Array<{ budget: string; name: string; limit: string; allowance: number; spent: number }>;
  },
): string {
  const spend = barChart(
    o.spendPerDay.map((d) => ({ label: d.day.slice(5), value: d.credits })),
    { title: 'Credits spent per day (UTC)', unit: 'credits', id: 'spend-chart' },
  );
  const runs = stackedChart(
    o.runsPerHour.map((h) => ({ label: h.hour, values: h.counts })),
    RUN_STATUSES,
    { title: 'Runs per hour by status (last 24 h, UTC)', id: 'runs-chart' },
  );
  const near = o.nearLimits.length
    ? `<ul id="near-limits">${o.nearLimits.map((n) => `<li><a href="/console/budgets#${e(n.budget)}">${e(n.name)}</a>: ${n.spent} of ${n.allowance} credits (${e(n.limit)})</li>`).join('')}</ul>`
    : '<p id="near-limits">No budget is near its limit.</p>';
  return layout(
    'Overview',
    `<section class="cards">
<div class="card"><h2>Credits left</h2><p class="big" id="credits-left">${o.credits}</p><p class="hint">The workspace's credit account, which funds its budgets.</p></div>
<div class="card"><h2>Budgets near their limits</h2>${near}</div>
</section>
<section class="card"><h2>Spend per day</h2>${spend}</section>
<section class="card"><h2>Runs per hour</h2>${runs}<p class="hint">${o.runsCounted} runs in the last 24 hours.</p></section>
<section class="card"><h2>Failing callbacks (last 7 days)</h2>
<table id="failing">${RUN_HEAD}<tbody>${runRows(o.failing)}</tbody></table></section>`,
    s,
    '/console',
  );
}

export interface RunsView {
  runs: RunSummary[];
  next: string | null;
  filter: Record<string, string>;
  groups: Array<{ _id: string; name: string }>;
}

export function runsPage(s: ConsoleSession, v: RunsView): string {
  const f = v.filter;
  const opt = (value: string, label: string, current: string | undefined) =>
    `<option value="${e(value)}"${value === (current ?? '') ? ' selected' : ''}>${e(label)}</option>`;
  const nextQuery = new URLSearchParams(
    Object.entries({ ...f, cursor: v.next ?? '' }).filter(([, val]) => val !== ''),
  ).toString();
  return layout(
    'Runs',
    `<form method="get" action="/console/runs" class="filters" id="filters">
<label>Status <select name="status" id="f-status">${opt('', 'any', f.status)}${RUN_STATUSES.map((st) => opt(st, st, f.status)).join('')}</select></label>
<label>Group <select name="group" id="f-group">${opt('', 'any', f.group)}${v.groups.map((g) => opt(g._id, g.name, f.group)).join('')}</select></label>
<label>Workflow <input name="workflow" id="f-workflow" value="${e(f.workflow ?? '')}" placeholder="wf_…" maxlength="67"></label>
<label>From <input type="datetime-local" name="from" id="f-from" value="${e(f.from ?? '')}"></label>
<label>To <input type="datetime-local" name="to" id="f-to" value="${e(f.to ?? '')}"></label>
<button type="submit" id="apply">Filter</button> <a href="/console/runs">Clear</a>
</form>
<table id="runs">${RUN_HEAD}<tbody>${runRows(v.runs)}</tbody></table>
${v.next ? `<p><a id="next-page" href="/console/runs?${e(nextQuery)}">Older runs →</a></p>` : ''}`,
    s,
    '/console/runs',
  );
}

function nodeRows(nodes: readonly RunNodeRecord[]): string {
  if (!nodes.length) return '<tr><td colspan="8">No node has run.</td></tr>';
  const at = (t: string | undefined) => (t ? new Date(t) : null);
  return nodes
    .map((n, i) => {
      const output =
        n.output !== undefined
          ? `<pre class="node-output">${e(n.output)}</pre>${n.output_cut ? '<small class="cut">cut</small>' : ''}`
          : n.output_cut
            ? '<small class="cut">left out (the run\'s previews are used up)</small>'
            : '';
      return `<tr data-node="${e(n.id)}"><td>${i + 1}</td><td>${e(n.id)}</td><td>${e(n.type)}</td><td>${statusTag(n.status)}</td><td class="node-started">${iso(at(n.started_at))}<br><small>ended ${iso(at(n.ended_at))}</small></td><td class="node-took">${ms(at(n.started_at), at(n.ended_at))}</td><td>${n.credits_charged ?? 0}${n.transaction_id ? ` <small>${e(n.transaction_id)}</small>` : ''}</td><td>${output}${n.error_code ? `<code>${e(n.error_code)}</code>` : ''}${n.worker ? ` <small>${e(n.worker)}</small>` : ''}</td></tr>`;
    })
    .join('\n');
}

export function runPage(
  s: ConsoleSession,
  v: {
    run: RunSummary & { prompt: string; error_message: string | null };
    output: string | null;
    outputCut: boolean;
    nodes: RunNodeRecord[];
    charged: number;
    deliveries: {
      attempts: Array<{
        _id: string;
        kind: string;
        attempt?: number | null;
        replay_id?: string | null;
        attempted_at: Date;
        status_code: number | null;
        latency_ms: number;
        outcome: string;
        error?: string | null;
      }>;
      next: string | null;
    };
    temporalUrl: string;
  },
  flash?: string,
): string {
  const r = v.run;
  const end = r.completed_at ?? r.failed_at ?? r.cancelled_at ?? r.setup_required_at;
  const deliveries = v.deliveries.attempts.length
    ? v.deliveries.attempts
        .map(
          (d) =>
            `<tr data-attempt="${e(d._id)}" data-kind="${e(d.kind)}"><td>${e(d.kind)}${d.kind === 'delivery' ? ` #${d.attempt ?? ''}` : ` <small>${e(d.replay_id ?? '')}</small>`}</td><td>${iso(d.attempted_at)}</td><td>${d.status_code ?? '—'}</td><td>${d.latency_ms} ms</td><td>${statusTag(d.outcome)}</td><td>${e(d.error ?? '')}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="6">No delivery yet.</td></tr>';
  const replay = r.callback_url
    ? `<form method="post" action="/console/runs/${e(r._id)}/replay" class="inline">${hidden(s)}<button type="submit" id="replay">Replay the final callback</button></form>`
    : '<p class="hint">This run was triggered without a callback URL.</p>';
  return layout(
    `Run ${r._id}`,
    `${notice(flash)}
<dl class="facts" id="run-facts">
<dt>Status</dt><dd id="run-status">${statusTag(r.status)}${r.error_code ? ` <code>${e(r.error_code)}</code> ${e(r.error_message ?? '')}` : ''}</dd>
<dt>Workflow</dt><dd>${e(r.workflow_id)}${r.workflow_version ? ` v${e(r.workflow_version)}` : ''}</dd>
<dt>Group</dt><dd>${e(r.group_id)} (budget ${e(r.budget_id)})</dd>
<dt>Queued</dt><dd>${iso(r.queued_at)}</dd>
<dt>Started</dt><dd>${iso(r.started_at)} <small>waited ${ms(r.queued_at, r.started_at)}</small></dd>
<dt>Ended</dt><dd>${iso(end)} <small>ran ${ms(r.started_at, end)}</small></dd>
<dt>Charged</dt><dd id="run-charged">${v.charged} credits</dd>
<dt>Execution</dt><dd><a id="temporal-link" href="${e(v.temporalUrl)}" rel="noreferrer">Open in the Temporal UI</a></dd>
</dl>
<section class="card"><h2>Nodes, in the order they ran</h2>
<table id="nodes"><thead><tr><th>#</th><th>Node</th><th>Kind</th><th>Status</th><th>Started</th><th>Took</th><th>Credits</th><th>Output / error / worker</th></tr></thead><tbody>${nodeRows(v.nodes)}</tbody></table></section>
<section class="card"><h2>Output</h2><pre id="output">${e(v.output ?? '')}</pre>${v.outputCut ? `<p class="hint">Cut at ${MAX_OUTPUT_CHARS} characters; the API's run poll has the whole text.</p>` : ''}</section>
<section class="card"><h2>Callback deliveries <small>${statusTag(r.callback_status)}</small></h2>
<table id="deliveries"><thead><tr><th>Attempt</th><th>At</th><th>HTTP</th><th>Latency</th><th>Outcome</th><th>Error</th></tr></thead><tbody>${deliveries}</tbody></table>
${v.deliveries.next ? `<p><a href="/console/runs/${e(r._id)}?after=${e(v.deliveries.next)}">More attempts →</a></p>` : ''}
${replay}</section>`,
    s,
    '/console/runs',
  );
}

type TokenRow = { token_id: string; label: string | null; created_at: Date; revoked_at: Date | null };

export function budgetsPage(
  s: ConsoleSession,
  budgets: Array<{
    budget: {
      _id: string;
      name: string;
      daily_credits: number | null;
      total_credits: number | null;
      catalog_tools?: boolean;
      workflow_ids: string[];
      workflow_versions: Record<string, string | null>;
    };
    spent: { today: number; total: number };
    groups: Array<{ group: { _id: string; name: string }; tokens: TokenRow[] }>;
  }>,
  shown?: { title: string; secrets: Array<[string, string]> },
): string {
  const once = shown
    ? `<section class="card secret" id="shown-once"><h2>${e(shown.title)}</h2><p>Copy now: it is shown once and cannot be read again.</p>
<dl>${shown.secrets.map(([k, v]) => `<dt>${e(k)}</dt><dd><code class="secret-value" data-name="${e(k)}">${e(v)}</code></dd>`).join('')}</dl></section>`
    : '';
  const tokens = (rows: TokenRow[]) =>
    rows
      .map(
        (t) =>
          `<tr data-token="${e(t.token_id)}"><td>${e(t.token_id)}</td><td>${e(t.label ?? '')}</td><td>${iso(t.created_at)}</td><td>${
            t.revoked_at
              ? `revoked ${iso(t.revoked_at)}`
              : `<form method="post" action="/console/tokens/${e(t.token_id)}/revoke" class="inline">${hidden(s)}<button type="submit" class="revoke">Revoke</button></form>`
          }</td></tr>`,
      )
      .join('');
  const cards = budgets
    .map(
      ({
        budget: b,
        spent,
        groups,
      }) => `<section class="card budget" id="${e(b._id)}"><h2>${e(b.name)} <small>${e(b._id)}</small></h2>
<p>Spent today <strong>${spent.today}</strong>${b.daily_credits !== null ? ` of ${b.daily_credits}` : ''} · in total <strong>${spent.total}</strong>${b.total_credits !== null ? ` of ${b.total_credits}` : ''} credits</p>
<form method="post" action="/console/budgets/${e(b._id)}/catalog-tools" class="inline catalog-tools">${hidden(s)}<input type="hidden" name="catalog_tools" value="${b.catalog_tools ? 'off' : 'on'}">Catalog tools for its groups: <strong class="catalog-state">${b.catalog_tools ? 'on' : 'off'}</strong> <button type="submit" class="catalog-switch">${b.catalog_tools ? 'Turn off' : 'Turn on'}</button> <small>(MCP calls to any catalog tool, paid from the workspace's credits)</small></form>
<p>Workflows: ${b.workflow_ids.length ? b.workflow_ids.map((w) => `<code>${e(w)}</code>${b.workflow_versions[w] ? ` v${e(b.workflow_versions[w])}` : ''}`).join(', ') : 'none'}</p>
${groups
  .map(
    ({
      group: g,
      tokens: rows,
    }) => `<div class="group" data-group="${e(g._id)}"><h3>${e(g.name)} <small>${e(g._id)}</small></h3>
<table class="tokens"><thead><tr><th>Token</th><th>Label</th><th>Created</th><th></th></tr></thead><tbody>${tokens(rows)}</tbody></table>
<form method="post" action="/console/groups/${e(g._id)}/tokens" class="inline">${hidden(s)}<input name="label" placeholder="label" maxlength="100"><button type="submit" class="mint">Mint a token</button></form></div>`,
  )
  .join('\n')}
<form method="post" action="/console/budgets/${e(b._id)}/groups" class="inline">${hidden(s)}<input name="name" placeholder="new group name" required maxlength="100"><button type="submit">Create a group</button></form>
</section>`,
    )
    .join('\n');
  return layout(
    'Budgets & groups',
    `${once}${cards || '<p>No budget yet.</p>'}
<section class="card"><h2>New budget</h2>
<form method="post" action="/console/budgets" id="new-budget">${hidden(s)}
<label>Name <input name="name" required maxlength="100"></label>
<label>Credits per day <input name="daily_credits" type="number" min="0" step="1"></label>
<label>Credits in total <input name="total_credits" type="number" min="0" step="1"></label>
<label><input name="catalog_tools" type="checkbox" value="on"> Catalog tools</label>
<button type="submit">Create</button></form></section>`,
    s,
    '/console/budgets',
  );
}

export function callbacksPage(
  s: ConsoleSession,
  groups: Array<{ group: { _id: string; name: string }; keys: PublicSigningKey[] }>,
  failing: RunSummary[],
  shown?: { group: string; secret: string | null; publicKey: string | null },
): string {
  const once = shown
    ? `<section class="card secret" id="shown-once"><h2>New signing key for ${e(shown.group)}</h2>${
        shown.secret
          ? `<p>The HMAC secret, shown once:</p><code class="secret-value">${e(shown.secret)}</code>`
          : `<p>The ed25519 public key (the private key never leaves the service):</p><code class="secret-value">${e(shown.publicKey ?? '')}</code>`
      }</section>`
    : '';
  const rows = groups
    .map(
      ({
        group: g,
        keys,
      }) => `<section class="card" data-group="${e(g._id)}"><h2>${e(g.name)} <small>${e(g._id)}</small></h2>
<table class="keys"><thead><tr><th>Version</th><th>Scheme</th><th>Public key</th><th>Created</th><th>Valid until</th></tr></thead><tbody>
${keys.map((k) => `<tr data-version="${k.version}"><td>${k.version}</td><td>${e(k.scheme)}</td><td><code>${e(k.public_key ?? '(HMAC)')}</code></td><td>${iso(k.created_at)}</td><td>${k.valid_until ? iso(k.valid_until) : 'in force'}</td></tr>`).join('')}
</tbody></table>
<form method="post" action="/console/groups/${e(g._id)}/signing-keys/rotate" class="inline">${hidden(s)}
<select name="scheme"><option value="v1a">ed25519 (v1a)</option><option value="v1">HMAC (v1)</option></select>
<button type="submit" class="rotate">Rotate the signing key</button></form></section>`,
    )
    .join('\n');
  return layout(
    'Callbacks',
    `${once}${rows || '<p>No agent group yet.</p>'}
<section class="card"><h2>Failed deliveries (last 7 days)</h2><table id="failing">${RUN_HEAD}<tbody>${runRows(failing)}</tbody></table></section>`,
    s,
    '/console/callbacks',
  );
}

export function approvalsPage(
  s: ConsoleSession,
  approvals: Array<{
    _id: string;
    kind: string;
    budget_id: string | null;
    workflow_id: string | null;
    credential_name: string | null;
    workflow_version?: string | null;
    reason: string;
    created_at: Date;
  }>,
  flash?: string,
): string {
  const rows = approvals.length
    ? approvals
        .map(
          (a) =>
            `<tr data-approval="${e(a._id)}"><td>${e(a._id)}</td><td>${e(a.kind)}</td><td>${e(a.workflow_id ?? a.credential_name ?? '')}${a.workflow_version ? ` v${e(a.workflow_version)}` : ''}</td><td>${e(a.budget_id ?? '')}</td><td>${e(a.reason)}</td><td>${iso(a.created_at)}</td><td><form method="post" action="/console/approvals/${e(a._id)}/approve" class="inline">${hidden(s)}<button type="submit" class="approve">Approve</button></form></td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="7">No open request.</td></tr>';
  return layout(
    'Approvals',
    `${notice(flash)}<table id="approvals"><thead><tr><th>Request</th><th>Kind</th><th>What</th><th>Budget</th><th>Reason</th><th>Opened</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p class="hint">A credential request needs the credential set first (admin CLI <code>credential:set</code>); approving then records it.</p>`,
    s,
    '/console/approvals',
  );
}

export function workflowsPage(
  s: ConsoleSession,
  workflows: Array<{
    _id: string;
    name: string;
    status: string;
    node_count: number;
    latest_version: string | null;
    updated_at: Date;
  }>,
): string {
  const rows = workflows.length
    ? workflows
        .map(
          (w) =>
            `<tr data-workflow="${e(w._id)}"><td><a href="/console/workflows/${e(w._id)}">${e(w._id)}</a></td><td>${e(w.name)}</td><td>${statusTag(w.status)}</td><td>${w.latest_version ? e(w.latest_version) : '—'}</td><td>${w.node_count}</td><td>${iso(w.updated_at)}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="6">No workflow in this workspace yet.</td></tr>';
  return layout(
    'Workflows',
    `<table id="workflows"><thead><tr><th>Workflow</th><th>Name</th><th>Status</th><th>Latest version</th><th>Nodes</th><th>Changed</th></tr></thead><tbody>${rows}</tbody></table>
<p class="hint">Workflows are created with the admin CLI (<code>workflow:create --workspace</code>); runs use the latest published version, or the draft while none is.</p>`,
    s,
    '/console/workflows',
  );
}

export function workflowPage(
  s: ConsoleSession,
  v: {
    workflow: {
      _id: string;
      name: string;
      description: string;
      status: string;
      credentials: string[];
      versions: Array<{ version: string; published_at: Date }>;
    };
    shownVersion: string | null;
    layout: GraphLayout;
    suggestedVersion: string;
  },
  flash?: string,
): string {
  const w = v.workflow;
  const base = `/console/workflows/${e(w._id)}`;
  const versions = [...w.versions].reverse();
  const rows = versions.length
    ? versions
        .map(
          (x) =>
            `<tr data-version="${e(x.version)}"${x.version === v.shownVersion ? ' class="on"' : ''}><td><a href="${base}?version=${e(x.version)}">${e(x.version)}</a></td><td>${iso(x.published_at)}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="2">Not published yet: runs use the draft.</td></tr>';
  const shown = v.shownVersion ? `version ${v.shownVersion}` : 'the draft';
  return layout(
    `Workflow ${w.name}`,
    `${notice(flash)}
<dl class="facts" id="workflow-facts">
<dt>Id</dt><dd>${e(w._id)}</dd>
<dt>Status</dt><dd>${statusTag(w.status)}</dd>
<dt>Description</dt><dd>${e(w.description) || '—'}</dd>
<dt>Credentials</dt><dd>${w.credentials.length ? w.credentials.map((c) => `<code>${e(c)}</code>`).join(', ') : 'none'}</dd>
</dl>
<section class="card"><h2>Graph of ${e(shown)} <small>${v.layout.nodes.length} nodes, ${v.layout.edges.length} edges</small></h2>
${v.shownVersion ? `<p><a href="${base}" id="show-draft">Show the draft</a></p>` : ''}
${graphChart(v.layout, { title: `${w.name}: ${shown}`, id: 'graph' })}</section>
<section class="card"><h2>Versions</h2>
<table id="versions"><thead><tr><th>Version</th><th>Published</th></tr></thead><tbody>${rows}</tbody></table>
<form method="post" action="${base}/publish" class="inline" id="publish">${hidden(s)}
<label>Publish the draft as <input name="version" value="${e(v.suggestedVersion)}" required maxlength="32" pattern="\\d+\\.\\d+\\.\\d+"></label>
<button type="submit">Publish</button></form>
<p class="hint">A version is frozen once published; it must be newer than every published one.</p></section>`,
    s,
    '/console/workflows',
  );
}

// ── the service operator's pages ─────────────────────────────────────────────

function pager(next: string | null, base: string, query: Record<string, string>, key = 'cursor'): string {
  if (!next) return '';
  const q = new URLSearchParams(Object.entries({ ...query, [key]: next }).filter(([, v]) => v !== '')).toString();
  return `<p><a id="next-page" href="${e(base)}?${e(q)}">Next page →</a></p>`;
}

export function catalogPage(
  s: OperatorSession,
  v: {
    products: Array<{
      id: string;
      slug: string;
      name: string;
      display_name: string;
      active: boolean;
      private: boolean;
      actions: Array<{ slug: string; credits: number; x402_usd: string | null }>;
    }>;
    next: string | null;
  },
): string {
  const rows = v.products.length
    ? v.products
        .map(
          (p) =>
            `<tr data-product="${e(p.id)}"><td>${e(p.display_name || p.name)} <small>${e(p.slug)}</small></td><td>${p.active ? 'active' : 'inactive'}${p.private ? ', private' : ''}</td><td><ul class="prices">${p.actions
              .map(
                (a) =>
                  `<li data-action="${e(a.slug)}"><code>${e(a.slug)}</code> <span class="credits">${a.credits} credits</span>${a.x402_usd !== null ? ` · <span class="x402">$${e(a.x402_usd)} x402</span>` : ''}</li>`,
              )
              .join('')}</ul></td><td><code>${e(p.id)}</code></td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="4">No product in the catalog.</td></tr>';
  return layout(
    'Catalog',
    `<table id="catalog"><thead><tr><th>Product</th><th>Listed</th><th>Actions and prices</th><th>Id</th></tr></thead><tbody>${rows}</tbody></table>
${pager(v.next, '/console/operator', {})}
<p class="hint">Every product, hidden and inactive ones too, by name. Products and their priced actions are added with the admin CLI (<code>product:create</code>, <code>action:add</code>).</p>`,
    s,
    '/console/operator',
  );
}

export function settlementsPage(
  s: OperatorSession,
  v: {
    payments: Array<{
      _id: string;
      status: string;
      purpose: { kind: string };
      network: string;
      token_symbol: string;
      payer: string;
      amount_usd: number;
      amount_base_units: string;
      tx_hash?: string;
      block_number?: string;
      error_code?: string;
      created_at: Date;
      settled_at?: Date;
    }>;
    next: string | null;
    status: string;
    statuses: readonly string[];
  },
): string {
  const rows = v.payments.length
    ? v.payments
        .map(
          (p) =>
            `<tr data-payment="${e(p._id)}"><td>${iso(p.created_at)}</td><td>${statusTag(p.status)}${p.error_code ? ` <code>${e(p.error_code)}</code>` : ''}</td><td>${e(p.purpose.kind)}</td><td><a href="/console/operator/ledger?account=${e(p.payer)}"><code>${e(p.payer)}</code></a></td><td>$${p.amount_usd} <small>${e(p.amount_base_units)} ${e(p.token_symbol)}</small></td><td>${e(p.network)}</td><td class="tx">${p.tx_hash ? `<code>${e(p.tx_hash)}</code>${p.block_number ? ` <small>block ${e(p.block_number)}</small>` : ''}` : '—'}</td><td>${iso(p.settled_at)}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="8">No payment.</td></tr>';
  const opt = (value: string, label: string) =>
    `<option value="${e(value)}"${value === v.status ? ' selected' : ''}>${e(label)}</option>`;
  return layout(
    'x402 settlements',
    `<form method="get" action="/console/operator/settlements" class="filters" id="filters">
<label>Status <select name="status" id="f-status">${opt('', 'any')}${v.statuses.map((st) => opt(st, st)).join('')}</select></label>
<button type="submit" id="apply">Filter</button></form>
<table id="settlements"><thead><tr><th>Created</th><th>Status</th><th>Buys</th><th>Payer</th><th>Amount</th><th>Network</th><th>Transaction</th><th>Settled</th></tr></thead><tbody>${rows}</tbody></table>
${pager(v.next, '/console/operator/settlements', { status: v.status })}`,
    s,
    '/console/operator/settlements',
  );
}

export function ledgerPage(
  s: OperatorSession,
  v: {
    account: string;
    view: {
      balance: number;
      entries: Array<{
        _id: string;
        op_id: string;
        seq: number;
        transaction_type: string;
        amount_credits: number;
        balance_after_credits: number;
        date_created: Date;
        request_id?: string;
      }>;
      next: number | null;
    } | null;
  },
): string {
  const form = `<form method="get" action="/console/operator/ledger" class="filters" id="ledger-form">
<label>Account <input name="account" id="f-account" value="${e(v.account)}" placeholder="0x… or ws:ws_…" maxlength="80" required></label>
<button type="submit" id="look-up">Look up</button></form>`;
  if (!v.view)
    return layout(
      'Ledger',
      `${form}<p class="hint">A wallet's address, or a workspace's credit account (<code>ws:&lt;workspace id&gt;</code>).</p>`,
      s,
      '/console/operator/ledger',
    );
  const rows = v.view.entries.length
    ? v.view.entries
        .map(
          (t) =>
            `<tr data-seq="${t.seq}" data-op="${e(t.op_id)}"><td>${t.seq}</td><td>${iso(t.date_created)}</td><td>${e(t.transaction_type)}</td><td class="amount">${t.amount_credits}</td><td>${t.balance_after_credits}</td><td><code>${e(t.op_id)}</code></td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="6">No entry: this account has never held credits.</td></tr>';
  return layout(
    'Ledger',
    `${form}
<dl class="facts" id="ledger-facts"><dt>Account</dt><dd><code>${e(v.account)}</code></dd><dt>Balance now</dt><dd id="ledger-balance">${v.view.balance} credits</dd></dl>
<table id="ledger"><thead><tr><th>#</th><th>At</th><th>Type</th><th>Credits</th><th>Balance after</th><th>Operation</th></tr></thead><tbody>${rows}</tbody></table>
${pager(v.view.next === null ? null : String(v.view.next), '/console/operator/ledger', { account: v.account }, 'before')}
<p class="hint">Every entry, the ledger's own holds and releases too, newest first.</p>`,
    s,
    '/console/operator/ledger',
  );
}
