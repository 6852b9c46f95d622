// The jobs view's Dashboard tab (administrators): one card per figure (jobs by status, live workers)
// and the last hour as two charts (charts.js), from pipelineJobCounts, pipelineMinutes and
// pipelineWorkers. The server keeps the history (one sample a minute in PostgreSQL), so a reload or
// another node shows the same charts.
import { gql } from './api.js';
import { h, say } from './ui.js';
import { chartWidth, clock, line, stackedBars } from './charts.js';
import { $, problem, statusRegion } from './jobs-common.js';

const QUERY = '{ pipelineJobCounts { status count } '
  + 'pipelineMinutes { minute finished failed queueDepth sampled current } pipelineWorkers { id live } }';

function sum(minutes, key) {
  return minutes.reduce((total, m) => total + (m[key] || 0), 0);
}

/** The busiest sampled minute for a figure, as words ("5 at 14:07"), or null when all are 0. */
function peak(minutes, key) {
  let best = null;
  for (const m of minutes) {
    if (m.sampled && (m[key] || 0) > 0 && (!best || m[key] > best[key])) {
      best = m;
    }
  }
  return best ? `${best[key]} at ${clock(best.minute)}` : null;
}

function throughputWords(minutes) {
  const missing = minutes.filter((m) => !m.sampled).length;
  const busiest = peak(minutes, 'finished');
  return `Over the last hour, ${sum(minutes, 'finished')} jobs finished and ${sum(minutes, 'failed')} failed.`
    + (busiest ? ` Most finished in one minute: ${busiest}.` : '')
    + (missing ? ` ${missing} minutes have no sample.` : '');
}

function depthWords(minutes) {
  const now = minutes[minutes.length - 1];
  const sampled = minutes.filter((m) => m.sampled);
  const highest = peak(minutes, 'queueDepth');
  return `Open jobs now: ${now ? now.queueDepth : 'unknown'}.`
    + (highest ? ` Highest in the last hour: ${highest}.` : ' No job was open in the sampled minutes.')
    + (sampled.length < minutes.length ? ` ${minutes.length - sampled.length} minutes have no sample.` : '');
}

function figure(name, value, key) {
  return h('div', { 'data-figure': key }, h('dt', null, name), h('dd', null, String(value)));
}

function historyTable(minutes) {
  const cell = (m, key) => (m.sampled ? String(m[key]) : '—');
  return h('table', { class: 'history' },
    h('caption', { class: 'visually-hidden' }, 'The last hour, one row a minute'),
    h('thead', null, h('tr', null, ['Minute', 'Finished', 'Failed', 'Queue depth'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, [...minutes].reverse().map((m) => h('tr', null,
      h('th', { scope: 'row' }, m.current ? `${clock(m.minute)} (now, so far)` : clock(m.minute)),
      h('td', null, cell(m, 'finished')), h('td', null, cell(m, 'failed')), h('td', null, cell(m, 'queueDepth'))))));
}

let lastMinutes = null;
let resizing = null;

/** Draws the two charts of the last hour, each as wide as its card allows. */
function drawCharts(minutes) {
  const bars = $('chart-throughput-svg');
  const depth = $('chart-depth-svg');
  bars.replaceChildren(stackedBars({
    id: 'throughput', title: 'Jobs finished and failed per minute, the last hour', description: throughputWords(minutes),
    yTitle: 'Jobs', minutes, width: chartWidth(bars),
    series: [{ key: 'finished', label: 'finished', cls: 'finished' }, { key: 'failed', label: 'failed', cls: 'failed' }],
  }));
  depth.replaceChildren(line({
    id: 'depth', title: 'Queue depth per minute, the last hour', description: depthWords(minutes),
    yTitle: 'Open jobs', minutes, key: 'queueDepth', label: 'open jobs', cls: 'depth', width: chartWidth(depth),
  }));
}

// a window that changes size (a phone turned) gets charts drawn for their new room
window.addEventListener('resize', () => {
  window.clearTimeout(resizing);
  resizing = window.setTimeout(() => {
    if (lastMinutes && !$('panel-dashboard').hidden) {
      drawCharts(lastMinutes);
    }
  }, 150);
});

/** Reads the figures and the last hour and draws them. */
export async function loadDashboard() {
  try {
    const data = await gql(QUERY);
    const live = data.pipelineWorkers.filter((w) => w.live).length;
    $('figures').replaceChildren(
      ...data.pipelineJobCounts.map((c) => figure(`Jobs ${c.status}`, c.count, c.status)),
      figure('Live workers', live, 'live-workers'));
    const minutes = data.pipelineMinutes;
    lastMinutes = minutes;
    drawCharts(minutes);
    $('history-table').replaceChildren(historyTable(minutes));
  } catch (e) {
    say(statusRegion(), `Could not read the dashboard: ${problem(e)}`, 'error');
  }
}
