// The page of `fleetq ui` (shared/ops/ui/server.ts serves it): asks GET /api/status every refresh interval and
// shows it. Every value came from a cluster, Redis or the queue: it is put into the page as text
// (textContent) only, never parsed as HTML, and class names come from fixed lists, never from the data.
/* global document, fetch, setTimeout */
'use strict';

const HEALTH_STATES = ['ok', 'refused', 'unreachable', 'unknown'];
const DEFAULT_REFRESH_MS = 5000;

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

function count(v) {
  return v === null || v === undefined ? '-' : String(v);
}

function rate(v) {
  if (v === null || v === undefined) return '-';
  return v >= 10 ? v.toFixed(0) : v.toFixed(2);
}

function age(ms) {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 120000) return `${Math.round(ms / 1000)}s`;
  if (ms < 7200000) return `${Math.round(ms / 60000)}m`;
  if (ms < 172800000) return `${Math.round(ms / 3600000)}h`;
  return `${Math.round(ms / 86400000)}d`;
}

// Queue latency: the cluster's oldest ready key's age (status.ts), `≥` before a lower bound, `-` when none is ready.
function latency(c) {
  if (c.oldestReadyAgeMs === null || c.oldestReadyAgeMs === undefined) return '-';
  return `${c.oldestReadyLowerBound ? '≥' : ''}${age(c.oldestReadyAgeMs)}`;
}

function cell(field, text, className) {
  const td = el('td', text, className);
  td.dataset.field = field;
  return td;
}

function healthCell(c) {
  const state = HEALTH_STATES.includes(c.health && c.health.state) ? c.health.state : 'unknown';
  const td = cell('health', undefined, `health-${state}`);
  td.append(el('span', state), el('span', (c.health && c.health.detail) || '', 'detail'));
  return td;
}

function forwarderText(c) {
  if (c.forwarder) return c.forwarder;
  return c.quarantined ? '(quarantined)' : '-';
}

function renderClusters(s) {
  const body = document.querySelector('#clusters tbody');
  const rows = s.clusters.map((c) => {
    const tr = el('tr');
    tr.dataset.cluster = c.cluster;
    const name = cell('cluster', c.cluster);
    if (!c.registered) name.append(el('span', 'not in the registry', 'detail'));
    tr.append(
      name,
      healthCell(c),
      cell('forwarder', forwarderText(c), c.forwarder ? 'text' : 'muted'),
      cell('depth', count(c.depth), 'num'),
      cell('latency', latency(c), 'num'),
      cell('inFlight', count(c.inFlight), 'num'),
      cell('backoff', count(c.backoff), 'num'),
      cell('deadLetters', count(c.deadLetters), 'num'),
      cell('lastEvent', c.lastEventAgeMs === null ? '-' : `${age(c.lastEventAgeMs)} ago`),
      cell('reconcilesPerSec', rate(c.reconcilesPerSec), 'num'),
      cell('errorsPerSec', rate(c.errorsPerSec), 'num'),
    );
    return tr;
  });
  body.replaceChildren(...rows);
  document.getElementById('clusters-empty').hidden = rows.length > 0;
}

function renderDeadLetters(s) {
  const d = s.deadLetters;
  const table = document.getElementById('dead-letters');
  const summary = document.getElementById('dead-summary');
  if (d.error) summary.textContent = `Dead letters not readable: ${d.error}`;
  else if (d.total === 0) summary.textContent = 'No dead letters.';
  else if (d.total > d.shown.length)
    summary.textContent = `${d.total} dead letters; the first ${d.shown.length} are shown (fleetq dlq list shows all).`;
  else summary.textContent = `${d.total} dead letter${d.total === 1 ? '' : 's'}.`;
  const rows = d.shown.map((l) => {
    const tr = el('tr');
    const key = cell('key', l.key === null ? '' : l.key, 'key');
    if (l.key === null) key.append(el('span', '(not a key) '), el('span', l.raw || '', 'text'));
    const parked = cell('at', `${age(l.ageMs)} ago`);
    parked.title = l.at;
    tr.append(key, cell('failures', String(l.failures), 'num'), parked, cell('reason', l.reason, 'text'));
    return tr;
  });
  table.querySelector('tbody').replaceChildren(...rows);
  table.hidden = rows.length === 0;
}

// A cluster's state in a rollout's current revision (shared/rollouts/format.ts ClusterState), in words.
const CLUSTER_STATES = {
  Pending: 'waiting',
  Progressing: 'admitted',
  Soaking: 'soaking',
  Succeeded: 'succeeded',
  Failed: 'failed',
  RolledBack: 'rolled back',
};
const STATE_CLASS = { Succeeded: 'state-ok', Failed: 'state-bad', RolledBack: 'state-bad' };
const WAVE_STATES = {
  Done: 'done',
  Current: 'current',
  WaitingForApproval: 'waiting for approval',
  Pending: 'pending',
  Stopped: 'stopped',
};

function clusterState(c) {
  const words = CLUSTER_STATES[c.state] || 'unknown';
  if (c.state === 'Soaking' && c.soakRemainingMs !== undefined) return `${words}, ${age(c.soakRemainingMs)} left`;
  if (c.state === 'Failed' && c.failure) return `${words}: ${c.failure}`;
  return words;
}

function waveLabel(w) {
  const state = WAVE_STATES[w.state] || 'unknown';
  if (w.state === 'WaitingForApproval' || !w.approval) return `${w.name} (${state})`;
  return `${w.name} (${state}, ${w.approved ? 'approved' : 'needs approval'})`;
}

function fact(list, field, label, value) {
  const dt = el('dt', label);
  const dd = el('dd', value, 'text');
  dd.dataset.field = field;
  list.append(dt, dd);
}

function waveRows(w) {
  if (w.clusters.length === 0) {
    const tr = el('tr');
    tr.append(cell('wave', waveLabel(w)), cell('cluster', '-', 'muted'), cell('state', ''), cell('reason', ''));
    return [tr];
  }
  return w.clusters.map((c, i) => {
    const tr = el('tr');
    tr.dataset.cluster = c.cluster;
    tr.append(
      cell('wave', i === 0 ? waveLabel(w) : ''),
      cell('cluster', c.cluster, 'text'),
      cell('state', clusterState(c), STATE_CLASS[c.state]),
      cell('reason', c.reason || '', 'text'),
    );
    return tr;
  });
}

function rolloutArticle(r) {
  const article = el('article', undefined, 'rollout');
  article.dataset.rollout = `${r.namespace}/${r.name}`;
  const title = el('h3', `${r.namespace}/${r.name}`);
  title.dataset.field = 'name';
  article.append(title);
  if (r.error !== undefined) {
    const p = el('p', `Not readable: ${r.error}`, 'state-bad');
    p.dataset.field = 'error';
    article.append(p);
    return article;
  }
  const facts = el('dl');
  fact(facts, 'target', 'Target', r.target);
  fact(facts, 'phase', 'Phase', `${r.phase}${r.paused ? ' (paused)' : ''}`);
  fact(facts, 'revision', 'Revision', r.revision === undefined ? '-' : `${r.revision} (attempt ${r.attempt || 1})`);
  fact(facts, 'wave', 'Wave', r.wave || '-');
  if (r.stopReason !== undefined) fact(facts, 'stopReason', 'Stopped', r.stopReason);
  article.append(facts);
  const table = el('table', undefined, 'waves');
  const head = el('tr');
  for (const h of ['Wave', 'Cluster', 'State', 'Reason']) {
    const th = el('th', h);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.append(...r.waves.flatMap(waveRows));
  table.append(thead, tbody);
  article.append(table);
  return article;
}

function renderRollouts(s) {
  const r = s.rollouts;
  const summary = document.getElementById('rollouts-summary');
  if (r.error) summary.textContent = r.hub === null ? `No rollouts shown: ${r.error}.` : `Not readable: ${r.error}`;
  else if (r.shown.length === 0) summary.textContent = `No FleetRollouts on the hub cluster ${r.hub}.`;
  else if (r.more)
    summary.textContent =
      `The first ${r.shown.length} FleetRollouts of the hub cluster ${r.hub}` +
      `${typeof r.more === 'number' ? `; ${r.more} more` : '; more'} not shown (fleetq rollout list -A shows all).`;
  else
    summary.textContent = `${r.shown.length} FleetRollout${r.shown.length === 1 ? '' : 's'} on the hub cluster ${r.hub}.`;
  document.getElementById('rollouts').replaceChildren(...r.shown.map(rolloutArticle));
}

function renderNotes(s) {
  const list = document.getElementById('notes');
  list.replaceChildren(...s.notes.map((n) => el('li', n)));
  document.getElementById('notes-section').hidden = s.notes.length === 0;
}

function render(s) {
  const rates = s.rateWindowMs === null ? '' : `, rates over ${age(s.rateWindowMs)}`;
  document.getElementById('summary').textContent = `Queue ${s.queue} (${s.driver}) at ${s.at}${rates}`;
  renderClusters(s);
  renderDeadLetters(s);
  renderRollouts(s);
  renderNotes(s);
}

function showProblem(text) {
  const p = document.getElementById('problem');
  p.textContent = text;
  p.hidden = text === '';
}

async function refresh() {
  let refreshMs = DEFAULT_REFRESH_MS;
  try {
    const res = await fetch('/api/status', { cache: 'no-store' });
    const body = await res.json();
    if (!res.ok) throw new Error(body && body.error ? body.error : `HTTP ${res.status}`);
    render(body);
    refreshMs = body.refreshMs || DEFAULT_REFRESH_MS;
    showProblem('');
    document.body.dataset.updated = body.at;
  } catch (err) {
    showProblem(`Status not readable (what is shown may be old): ${err instanceof Error ? err.message : String(err)}`);
  }
  document.getElementById('refresh').textContent = `Refreshes every ${age(refreshMs)}.`;
  setTimeout(refresh, refreshMs);
}

refresh();
