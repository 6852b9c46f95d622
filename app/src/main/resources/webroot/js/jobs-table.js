// The jobs view's Jobs tab: every job, newest first, filtered by status, kind, worker and file name
// and paged (pipelineJobs). The filters and the page live in the address (jobs.js keeps it), so a
// link reproduces the view and Back and Forward walk the views. A failed job shows its error and,
// for editors and up, a Retry button (retryJob: a new queued job of the same kind on the file).
import { gql } from './api.js';
import { count, h, pager, say, when } from './ui.js';
import { $, canChange, isAdmin, problem, STATE_TEXT, statusRegion } from './jobs-common.js';

const PER_PAGE = 25;
const ROWS = `query($status: String, $kind: String, $worker: String, $fileName: String, $page: Int, $perPage: Int) {
  pipelineJobs(status: $status, kind: $kind, worker: $worker, fileName: $fileName, page: $page, perPage: $perPage) {
    page perPage total jobs { fileName fileTrashed workerName job { id fileId kind status state error attempts maxAttempts
    createdAt finishedAt } } } }`;

let kindsRead = false;

/** The kinds for the kind filter (and the worker names, for administrators), read once. */
async function loadChoices(filters) {
  if (kindsRead) {
    return;
  }
  try {
    const data = await gql(`{ pipelineKinds { name } ${isAdmin() ? 'pipelineWorkers { name }' : ''} }`);
    const select = $('filter-kind');
    select.replaceChildren(h('option', { value: '' }, 'Any kind'),
      ...data.pipelineKinds.map((k) => h('option', { value: k.name }, k.name)));
    if (data.pipelineWorkers) {
      $('worker-names').replaceChildren(...data.pipelineWorkers.map((w) => h('option', { value: w.name })));
    }
    kindsRead = true;
  } catch (e) {
    say(statusRegion(), `Could not read the kinds: ${problem(e)}`, 'error');
  }
  showFilters(filters);
}

/** Puts the filters of the address into the form (a kind the list lacks is added, so it shows). */
function showFilters(filters) {
  const kind = $('filter-kind');
  if (filters.kind && ![...kind.options].some((o) => o.value === filters.kind)) {
    kind.append(h('option', { value: filters.kind }, filters.kind));
  }
  $('filter-status').value = filters.status || '';
  kind.value = filters.kind || '';
  $('filter-worker').value = filters.worker || '';
  $('filter-file').value = filters.file || '';
}

function rowElement(row, reload) {
  const { job } = row;
  const failed = job.status === 'failed';
  // one element in each cell: on a narrow screen a cell is a grid of its label and its content
  const cell = (label, ...children) => h('td', { 'data-label': label }, h('div', null, ...children));
  return h('tr', { id: `jobrow-${job.id}`, 'data-job-id': job.id, 'data-status': job.status, class: failed ? 'failed' : null },
    cell('File', row.fileName, row.fileTrashed ? h('span', { class: 'badge' }, 'in the Trash') : null),
    cell('Kind', job.kind),
    cell('Status', h('span', { class: ['state', job.state] }, STATE_TEXT[job.state] || job.state),
      h('span', { class: 'meta' }, ` attempt ${job.attempts} of ${job.maxAttempts}`)),
    cell('Worker', row.workerName || '—'),
    cell('Queued', when(job.createdAt)),
    cell('Ended', job.finishedAt ? when(job.finishedAt) : '—'),
    cell('Error', job.error ? h('span', { class: 'error-text' }, job.error) : '—',
      failed && canChange() ? h('button', {
        type: 'button', class: 'secondary retry', 'aria-label': `Retry ${job.kind} on ${row.fileName}`,
        onclick: (e) => retry(row, e.target, reload),
      }, 'Retry') : null));
}

async function retry(row, button, reload) {
  button.disabled = true;
  try {
    const data = await gql('mutation($id: ID!) { retryJob(id: $id) { id kind status } }', { id: row.job.id });
    say(statusRegion(), `Retried ${row.job.kind} on ${row.fileName}: a new job is ${data.retryJob.status}.`);
    await reload();
  } catch (e) {
    say(statusRegion(), `Could not retry ${row.job.kind} on ${row.fileName}: ${problem(e)}`, 'error');
    button.disabled = false;
  }
}

/**
 * Draws the table for the filters of the address ({status, kind, worker, file, page}); go(changes)
 * moves to another page of the same filters.
 */
export async function loadJobs(filters, go) {
  await loadChoices(filters);
  showFilters(filters);
  const page = Math.max(1, Number(filters.page) || 1);
  const reload = () => loadJobs(filters, go);
  try {
    const data = await gql(ROWS, {
      status: filters.status || null, kind: filters.kind || null, worker: filters.worker || null,
      fileName: filters.file || null, page, perPage: PER_PAGE,
    });
    const result = data.pipelineJobs;
    const rows = result.jobs;
    $('job-rows').replaceChildren(...(rows.length ? rows.map((r) => rowElement(r, reload))
      : [h('tr', null, h('td', { colspan: '7', class: 'empty' }, 'No job matches these filters.'))]));
    const pages = Math.max(1, Math.ceil(result.total / result.perPage));
    $('jobs-count').textContent = `${count(result.total, 'job')} match${result.total === 1 ? 'es' : ''}.`;
    pager($('jobs-pager'), page, pages, (p) => go({ page: p }));
  } catch (e) {
    $('job-rows').replaceChildren();
    $('jobs-count').textContent = '';
    $('jobs-pager').replaceChildren();
    say(statusRegion(), `Could not read the jobs: ${problem(e)}`, 'error');
  }
}

/** The filters as the form holds them (the page starts again at 1). */
export function filtersOfForm() {
  return {
    status: $('filter-status').value, kind: $('filter-kind').value, worker: $('filter-worker').value.trim(),
    file: $('filter-file').value.trim(), page: '',
  };
}
