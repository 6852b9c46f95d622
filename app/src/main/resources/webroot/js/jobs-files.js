// The jobs view's Files tab: folders and their files (GraphQL), each file's processed versions and
// jobs, queueing a kind (enqueueJob), a kind for a whole folder (Process folder: enqueueFolder) and
// cancelling (cancelJob) for editors and up, and live progress through the jobUpdated subscription. A job is only ever redrawn from a view the server sent, and a
// view older (lower seq) than the one shown is ignored.
import { gql } from './api.js';
import { GraphqlSocket } from './graphql-ws.js';
import { bytes, confirmDialog, count, h, joined, say, when } from './ui.js';
import { $, canChange, JOB, kindLabel, problem, STATE_TEXT, statusRegion } from './jobs-common.js';
import { loadAllKinds, processFolderForm } from './jobs-folders.js';
import { setUploadFolders } from './jobs-upload.js';

const VERSION = 'id kind mimeType ext size attempt jobId createdAt downloadUrl';
const FILE = `id name mimeType size folderId createdAt downloadUrl processedVersions { ${VERSION} } jobs { ${JOB} }`;
const LIBRARY = `{ folders { id name parentId createdAt files { ${FILE} } } }`;
const FINAL = new Set(['done', 'failed', 'cancelled']);

const state = {
  folders: [],
  files: new Map(),
  jobs: new Map(),
  subscriptions: new Map(),
  kinds: new Map(),
};

const socket = new GraphqlSocket({
  onReconnect: () => {
    for (const id of state.subscriptions.keys()) {
      catchUp(id);
    }
  },
  onStatus: (status) => {
    const live = $('live');
    live.textContent = status === 'live' ? 'Live updates: on' : status === 'offline' ? 'Live updates: reconnecting…'
      : 'Live updates: connecting…';
    live.className = `badge ${status === 'live' ? 'green' : status === 'offline' ? 'amber' : ''}`;
  },
});

/** Starts the live updates (the badge in the toolbar shows how they go). */
export function connectLive() {
  socket.connect();
}

// ---------------------------------------------------------------- jobs

function isNewer(view) {
  const shown = state.jobs.get(view.id);
  return !shown || Number(view.seq) > Number(shown.seq);
}

/** Shows a job view unless an equal or newer one (by seq) is already shown. Answers whether it did. */
function applyJob(view) {
  if (!view || !isNewer(view)) {
    return false;
  }
  const before = state.jobs.get(view.id);
  state.jobs.set(view.id, view);
  const file = state.files.get(view.fileId);
  if (file && !file.jobs.some((j) => j.id === view.id)) {
    file.jobs.unshift(view);
  }
  const el = $(`job-${view.id}`);
  if (el) {
    el.replaceWith(jobElement(view));
  } else if (file) {
    renderJobs(file);
  }
  if (FINAL.has(view.status)) {
    unsubscribe(view.id);
    if (view.status === 'done' && (!before || before.status !== 'done')) {
      refreshFile(view.fileId);
    }
    if (!before || !FINAL.has(before.status)) {
      say(statusRegion(), `${view.kind} on ${file ? file.name : 'a file'}: ${STATE_TEXT[view.state] || view.state}.`);
    }
  } else {
    follow(view.id);
  }
  return true;
}

function follow(jobId) {
  if (state.subscriptions.has(jobId)) {
    return;
  }
  const stop = socket.subscribe(`subscription($id: ID!) { jobUpdated(jobId: $id) { ${JOB} } }`, { id: jobId }, {
    next: (data) => {
      if (data && data.jobUpdated) {
        applyJob(data.jobUpdated);
      }
    },
    error: () => {
      state.subscriptions.delete(jobId);
    },
    complete: () => {
      state.subscriptions.delete(jobId);
    },
  });
  state.subscriptions.set(jobId, stop);
  // changes made before the server started following the job are not sent: read it now and once more
  catchUp(jobId);
  window.setTimeout(() => catchUp(jobId), 1000);
}

function unsubscribe(jobId) {
  const stop = state.subscriptions.get(jobId);
  if (stop) {
    state.subscriptions.delete(jobId);
    stop();
  }
}

async function catchUp(jobId) {
  try {
    const data = await gql(`query($id: ID!) { pipelineJob(id: $id) { ${JOB} } }`, { id: jobId });
    applyJob(data.pipelineJob);
  } catch (e) {
    // the subscription still runs; the next change redraws the job
  }
}

function jobElement(job) {
  const final = FINAL.has(job.status);
  const stateText = STATE_TEXT[job.state] || job.state;
  const version = job.outputVersion;
  return h('li', {
    class: 'job', id: `job-${job.id}`, 'data-job-id': job.id, 'data-seq': job.seq, 'data-state': job.state,
    'data-progress': job.progress,
  },
  h('div', null,
    h('span', { class: 'what' }, job.kind), ' ',
    h('span', { class: ['state', job.state] }, stateText),
    h('div', { class: 'meta' }, joined([`attempt ${job.attempts} of ${job.maxAttempts}`,
      ['queued ', when(job.createdAt)], job.finishedAt ? ['ended ', when(job.finishedAt)] : null]))),
  h('div', { class: 'bar' },
    h('progress', { max: '100', value: String(job.progress), 'aria-label': `Progress of ${job.kind}` }, `${job.progress}%`),
    h('span', { class: 'pct', 'aria-hidden': 'true' }, `${job.progress}%`)),
  h('div', { class: 'actions' },
    !final && canChange() ? h('button', {
      type: 'button', class: 'secondary cancel', 'aria-label': `Cancel ${job.kind}`, onclick: (e) => cancel(job, e.target),
    }, 'Cancel') : null,
    job.status === 'done' && version ? h('a', { href: version.downloadUrl, download: '', class: 'download' }, 'Download') : null),
  job.error ? h('p', { class: 'error-text' }, `Error: ${job.error}`) : null);
}

async function cancel(job, button) {
  button.disabled = true;
  try {
    const data = await gql('mutation($id: ID!) { cancelJob(id: $id) { ' + JOB + ' } }', { id: job.id });
    applyJob(data.cancelJob);
  } catch (e) {
    say(statusRegion(), `Could not cancel ${job.kind}: ${problem(e)}`, 'error');
    button.disabled = false;
    catchUp(job.id);
  }
}

// ---------------------------------------------------------------- files

function renderJobs(file) {
  const holder = $(`file-${file.id}-jobs`);
  if (!holder) {
    return;
  }
  const jobs = file.jobs.map((j) => state.jobs.get(j.id) || j);
  holder.replaceChildren(jobs.length ? h('ul', null, jobs.map(jobElement)) : h('p', { class: 'empty' }, 'No jobs yet.'));
}

function versionsElement(file) {
  const versions = file.processedVersions || [];
  if (!versions.length) {
    return h('p', { class: 'empty' }, 'No processed versions yet.');
  }
  return h('ul', null, versions.map((v) => h('li', { class: 'version', 'data-version-id': v.id },
    h('a', { href: v.downloadUrl, download: '' }, `${v.kind} (.${v.ext})`), ' · ',
    joined([v.mimeType, bytes(v.size), ['made ', when(v.createdAt)]]))));
}

/** Whether the file already has a processed version of this kind (queueing it again makes another). */
function hasVersionOf(file, kind) {
  return (file.processedVersions || []).some((v) => v.kind === kind);
}

function enqueueForm(file) {
  if (!canChange()) {
    return null;
  }
  const kinds = state.kinds.get(file.id);
  if (kinds && !kinds.length) {
    return h('p', { class: 'empty no-kind' }, 'No kind of processing applies to this type of file.');
  }
  const selectId = `kind-${file.id}`;
  const select = h('select', { id: selectId, name: 'kind', class: 'kind' },
    (kinds || []).map((k) => h('option', { value: k.name }, kindLabel(k))));
  const button = h('button', { type: 'submit', class: 'queue', disabled: !kinds }, 'Queue');
  const form = h('form', { class: 'enqueue', 'aria-label': `Queue a job for ${file.name}` },
    h('div', { class: 'field' }, h('label', { for: selectId }, 'Process as'), select),
    button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!select.value) {
      return;
    }
    const current = state.files.get(file.id) || file;
    if (hasVersionOf(current, select.value)) {
      $('again-name').textContent = file.name;
      $('again-kind').textContent = select.value;
      if (await confirmDialog($('again-dialog')) === null) {
        say(statusRegion(), `Not queued: ${file.name} keeps its ${select.value} version.`);
        return;
      }
    }
    button.disabled = true;
    try {
      const data = await gql(`mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { ${JOB} } }`,
        { f: file.id, k: select.value });
      const job = data.enqueueJob;
      applyJob(job);
      follow(job.id);
      say(statusRegion(), `Queued ${job.kind} for ${file.name}.`);
    } catch (e) {
      say(statusRegion(), `Could not queue ${select.value}: ${problem(e)}`, 'error');
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function fileElement(file) {
  return h('article', { class: 'file', id: `file-${file.id}`, 'data-file-id': file.id, 'aria-labelledby': `file-${file.id}-name` },
    h('h3', { id: `file-${file.id}-name` }, file.name),
    h('p', { class: 'meta' }, joined([file.mimeType, bytes(file.size), ['added ', when(file.createdAt)],
      h('a', { href: file.downloadUrl, download: '' }, 'Original')])),
    h('p', { class: 'sub' }, 'Processed versions'),
    h('div', { id: `file-${file.id}-versions` }, versionsElement(file)),
    h('p', { class: 'sub' }, 'Jobs'),
    h('div', { id: `file-${file.id}-jobs` }),
    enqueueForm(file));
}

/** Reads one file again (after a job finished) and redraws it; newer job views already shown stay. */
async function refreshFile(fileId) {
  try {
    const data = await gql(`query($id: ID!) { file(id: $id) { ${FILE} } }`, { id: fileId });
    const file = data.file;
    if (!file) {
      return;
    }
    state.files.set(file.id, file);
    for (const job of file.jobs) {
      if (isNewer(job)) {
        state.jobs.set(job.id, job);
      }
    }
    const el = $(`file-${file.id}`);
    if (el) {
      el.replaceWith(fileElement(file));
      renderJobs(file);
    }
  } catch (e) {
    say(statusRegion(), `Could not read the file again: ${problem(e)}`, 'error');
  }
}

// ---------------------------------------------------------------- the library

function folderElement(folder, children) {
  const files = folder.files || [];
  const body = h('div', { class: 'folder-body' },
    processFolderForm(folder, () => loadLibrary(false)),
    files.length ? files.map(fileElement) : h('p', { class: 'empty' }, 'No files in this folder.'),
    children.map((c) => folderElement(c, childrenOf(c.id))));
  return h('details', { class: 'folder', open: true, 'data-folder-id': folder.id },
    h('summary', null, `${folder.name} (${count(files.length, 'file')})`), body);
}

function childrenOf(id) {
  return state.folders.filter((f) => f.parentId === id);
}

function renderLibrary() {
  const ids = new Set(state.folders.map((f) => f.id));
  const roots = state.folders.filter((f) => !f.parentId || !ids.has(f.parentId));
  $('library').replaceChildren(...(roots.length ? roots.map((f) => folderElement(f, childrenOf(f.id)))
    : [h('p', { class: 'empty' }, 'No folders yet.')]));
  for (const file of state.files.values()) {
    renderJobs(file);
  }
}

async function loadKinds() {
  const files = [...state.files.values()];
  if (!canChange() || !files.length) {
    return;
  }
  const params = files.map((f, i) => `$f${i}: ID!`).join(', ');
  const fields = files.map((f, i) => `k${i}: availableKinds(fileId: $f${i}) { name live builtin workerSeenAt }`)
    .join(' ');
  const variables = {};
  files.forEach((f, i) => {
    variables[`f${i}`] = f.id;
  });
  try {
    const data = await gql(`query(${params}) { ${fields} }`, variables);
    files.forEach((f, i) => state.kinds.set(f.id, data[`k${i}`] || []));
  } catch (e) {
    say(statusRegion(), `Could not read which kinds apply: ${problem(e)}`, 'error');
    return;
  }
  for (const f of files) {
    const el = $(`file-${f.id}`);
    const old = el && el.querySelector('form.enqueue');
    const fresh = enqueueForm(f);
    if (old && fresh) {
      old.replaceWith(fresh);
    }
  }
}

/** Reads the folders and files and draws them; follows every unfinished job. {@code announce}: say how many. */
export async function loadLibrary(announce = true) {
  if (announce) {
    say(statusRegion(), 'Loading the library…');
  }
  try {
    const data = await gql(LIBRARY);
    state.folders = data.folders;
    state.files.clear();
    for (const folder of data.folders) {
      for (const file of folder.files || []) {
        state.files.set(file.id, file);
        for (const job of file.jobs) {
          if (isNewer(job)) {
            state.jobs.set(job.id, job);
          }
        }
      }
    }
    renderLibrary();
    setUploadFolders(state.folders);
    for (const job of state.jobs.values()) {
      if (!FINAL.has(job.status) && state.files.has(job.fileId)) {
        follow(job.id);
      }
    }
    $('library-note').textContent = canChange() ? ''
      : 'You can look and download. Queueing and cancelling jobs needs the editor level.';
    if (announce) {
      say(statusRegion(), `${count(state.folders.length, 'folder')}, ${count(state.files.size, 'file')}.`);
    }
    await Promise.all([loadAllKinds(state.folders, () => loadLibrary(false)), loadKinds()]);
  } catch (e) {
    say(statusRegion(), problem(e), 'error');
  }
}

// for the browser tests: the ordering rule, applied to a view they make up
export { applyJob };
