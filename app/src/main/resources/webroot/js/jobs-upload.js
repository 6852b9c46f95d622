// The jobs view's Files tab: uploading files into a folder with tus (tus-js-client's browser build,
// vendor/tus.min.js as published on npm: imported for its effect, it defines the global `tus`) through the app's resumable uploads (/api/v1/uploads). Each
// file gets a row with a progress bar and Pause / Resume. A dropped connection is retried from the
// offset the server kept; after a reload, picking the same file for the same folder again finds the
// upload tus-js-client remembered in localStorage and goes on from there. Editors and up only.
import '../vendor/tus.min.js';
import { bytes, h, say } from './ui.js';
import { $, canChange, statusRegion } from './jobs-common.js';

const ENDPOINT = '/api/v1/uploads';
/** Waits before each retry after a dropped connection (ms); after the last, the row offers Resume. */
const RETRY_DELAYS = [0, 1000, 2000, 4000, 8000, 15000, 30000];

let onUploaded = () => {};
let rows = 0;

/** What a tus error's response says, in words. */
function why(err) {
  const res = err && err.originalResponse;
  if (!res) {
    return 'the connection was lost';
  }
  try {
    const body = JSON.parse(res.getBody());
    if (body && body.error && body.error.message) {
      return body.error.message;
    }
  } catch (e) {
    // not JSON: the status says enough
  }
  return `the server answered ${res.getStatus()}`;
}

/** tus-js-client's own rule (retry unless a 4xx other than 409 and 423), and the row says it retries. */
function shouldRetry(row, err) {
  const status = err && err.originalResponse ? err.originalResponse.getStatus() : 0;
  const retry = !status || status < 400 || status >= 500 || status === 409 || status === 423;
  if (retry) {
    setState(row, 'retrying', 'Connection lost: going on from where it stopped…');
  }
  return retry;
}

function setState(row, state, text) {
  row.el.dataset.state = state;
  row.status.textContent = text;
  row.pause.hidden = state !== 'uploading' && state !== 'retrying';
  row.resume.hidden = state !== 'paused' && state !== 'error';
}

function progress(row, sent, total) {
  const pct = total > 0 ? Math.floor((sent / total) * 100) : 100;
  row.bar.value = pct;
  row.bar.textContent = `${pct}%`;
  row.pct.textContent = `${pct}%`;
  row.el.dataset.offset = String(sent);
  row.sizes.textContent = `${bytes(sent)} of ${bytes(total)}`;
}

function rowElement(file, folderName) {
  const n = ++rows;
  const row = {};
  row.bar = h('progress', { max: '100', value: '0', 'aria-label': `Upload of ${file.name}` }, '0%');
  row.pct = h('span', { class: 'pct', 'aria-hidden': 'true' }, '0%');
  row.sizes = h('span', { class: 'meta' }, `0 B of ${bytes(file.size)}`);
  row.status = h('span', { class: 'state', id: `upload-${n}-status` }, 'Starting…');
  row.pause = h('button', { type: 'button', class: 'secondary pause', 'aria-label': `Pause ${file.name}` }, 'Pause');
  row.resume = h('button', { type: 'button', class: 'resume', 'aria-label': `Resume ${file.name}`, hidden: true },
    'Resume');
  row.el = h('li', { class: 'upload', id: `upload-${n}`, 'data-name': file.name, 'data-state': 'starting' },
    h('div', null, h('span', { class: 'what' }, file.name), ' ', row.status,
      h('div', { class: 'meta' }, `into ${folderName} · `, row.sizes)),
    h('div', { class: 'bar' }, row.bar, row.pct),
    h('div', { class: 'actions' }, row.pause, row.resume));
  return row;
}

/** Uploads one file into a folder, resuming an upload of the same file there if one was started before. */
function upload(file, folderId, folderName) {
  const row = rowElement(file, folderName);
  $('uploads').prepend(row.el);
  const tusUpload = new window.tus.Upload(file, {
    endpoint: ENDPOINT,
    retryDelays: RETRY_DELAYS,
    // the folder is part of what identifies an upload: the same file picked for another folder is a new one
    fingerprint: (f) => Promise.resolve(['shotstash', folderId, f.name, f.type, f.size, f.lastModified].join('/')),
    removeFingerprintOnSuccess: true,
    metadata: { filename: file.name, filetype: file.type || 'application/octet-stream', folderId },
    onProgress: (sent, total) => {
      progress(row, sent, total);
      if (row.el.dataset.state !== 'uploading' && row.el.dataset.state !== 'paused') {
        setState(row, 'uploading', 'Uploading…');
      }
    },
    onShouldRetry: (err) => shouldRetry(row, err),
    onError: (err) => {
      setState(row, 'error', `Stopped: ${why(err)}. Resume goes on from where it stopped.`);
      say(statusRegion(), `The upload of ${file.name} stopped: ${why(err)}.`, 'error');
    },
    onSuccess: ({ lastResponse }) => {
      const fileId = lastResponse ? lastResponse.getHeader('Shotstash-File-Id') : null;
      progress(row, file.size, file.size);
      row.el.dataset.fileId = fileId || '';
      setState(row, 'done', 'Uploaded');
      say(statusRegion(), `Uploaded ${file.name} into ${folderName}.`);
      onUploaded(fileId);
    },
  });
  row.pause.addEventListener('click', () => {
    tusUpload.abort();
    setState(row, 'paused', 'Paused');
  });
  row.resume.addEventListener('click', () => {
    setState(row, 'uploading', 'Uploading…');
    tusUpload.start();
  });
  tusUpload.findPreviousUploads().then((previous) => {
    if (previous.length) {
      tusUpload.resumeFromPreviousUpload(previous[0]);
      row.el.dataset.resumed = 'true';
      setState(row, 'uploading', 'Going on from where it stopped…');
    }
    tusUpload.start();
  });
}

/** How far a remembered upload got (HEAD), or null when the server no longer has it (ended, expired). */
async function offsetOf(entry) {
  try {
    const res = await fetch(entry.uploadUrl, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
    return res.ok ? Number(res.headers.get('Upload-Offset')) : null;
  } catch (e) {
    return undefined; // offline: keep it, say nothing about its progress
  }
}

/**
 * Ends a remembered upload on the server (its bytes go) and forgets it here. A 409 means a request of
 * the page before the reload is still being recorded: ask again a few times.
 */
async function discard(entry, item, button) {
  button.disabled = true;
  const name = entry.metadata.filename;
  for (let attempt = 0; attempt < 6; attempt++) {
    let status;
    try {
      status = (await fetch(entry.uploadUrl, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } })).status;
    } catch (e) {
      status = 0;
    }
    if (status === 204 || status === 404 || status === 410) {
      await window.tus.defaultOptions.urlStorage.removeUpload(entry.urlStorageKey);
      item.remove();
      say(statusRegion(), `Discarded the unfinished upload of ${name}.`);
      return;
    }
    if (status !== 409 && status !== 0) {
      say(statusRegion(), `Could not discard ${name}: the server answered ${status}.`, 'error');
      break;
    }
    await new Promise((resolve) => window.setTimeout(resolve, 500 * (attempt + 1)));
  }
  button.disabled = false;
}

/**
 * Uploads remembered from before a reload that are not finished: how far each got, which file to pick
 * again, and Discard. Ones the server no longer has (ended, expired) are forgotten.
 */
async function showUnfinished() {
  const holder = $('unfinished');
  let entries = [];
  try {
    entries = await window.tus.defaultOptions.urlStorage.findAllUploads();
  } catch (e) {
    entries = [];
  }
  const folders = new Map([...$('upload-folder').options].map((o) => [o.value, o.textContent]));
  const items = [];
  for (const entry of entries.filter((e) => e.metadata && e.metadata.folderId && e.uploadUrl)) {
    const offset = await offsetOf(entry);
    if (offset === null) {
      await window.tus.defaultOptions.urlStorage.removeUpload(entry.urlStorageKey);
      continue;
    }
    const name = entry.metadata.filename;
    const sent = offset === undefined ? `${bytes(entry.size)}` : `${bytes(offset)} of ${bytes(entry.size)} sent`;
    const item = h('li', { 'data-name': name },
      `${name} into ${folders.get(entry.metadata.folderId) || 'a folder'}: ${sent} `);
    const button = h('button', { type: 'button', class: 'secondary discard', 'aria-label': `Discard ${name}` },
      'Discard');
    button.addEventListener('click', () => discard(entry, item, button));
    item.append(button);
    items.push(item);
  }
  holder.replaceChildren(...(items.length ? [h('p', { class: 'keys' }, 'Not finished before the page was left: '
    + 'pick the same file for the same folder again to go on from where it stopped.'),
  h('ul', { class: 'unfinished' }, items)] : []));
}

/** Fills the folder choice (after the library was read): every folder not in the Trash. */
export function setUploadFolders(folders) {
  const section = $('upload');
  if (!section || !canChange()) {
    return;
  }
  section.hidden = false;
  const select = $('upload-folder');
  const chosen = select.value;
  select.replaceChildren(...folders.map((f) => h('option', { value: f.id }, f.name)));
  if (folders.some((f) => f.id === chosen)) {
    select.value = chosen;
  }
  $('upload-start').disabled = !folders.length;
  $('upload-note').textContent = folders.length ? ''
    : 'Make a folder first (GraphQL createFolder): every file lives in a folder.';
  showUnfinished();
}

/** Wires the upload form; {@code uploaded(fileId)} runs after each finished upload. */
export function mountUploads(uploaded) {
  onUploaded = uploaded;
  const form = $('upload-form');
  if (!form) {
    return;
  }
  if (!window.tus || !window.tus.isSupported) {
    $('upload-note').textContent = 'This browser cannot upload from this page.';
    $('upload-start').disabled = true;
    return;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const select = $('upload-folder');
    const input = $('upload-files');
    if (!select.value || !input.files.length) {
      say(statusRegion(), 'Pick a folder and at least one file.', 'error');
      return;
    }
    const folderName = select.options[select.selectedIndex].textContent;
    for (const file of input.files) {
      upload(file, select.value, folderName);
    }
    input.value = '';
  });
}
