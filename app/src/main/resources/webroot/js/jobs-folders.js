// The jobs view's Files tab, a whole folder at once: the Process folder form on each folder
// (GraphQL enqueueFolder), with the choice and the outcome of its last run kept across redraws.
import { gql } from './api.js';
import { count, h, say } from './ui.js';
import { canChange, kindLabel, problem, statusRegion } from './jobs-common.js';

// A folder processed with fewer new jobs than this is read again at once, to show them (each is followed
// live); more are left to the Refresh button, so one click never opens thousands of subscriptions.
const REDRAW_UP_TO = 200;

const state = {
  // every kind, once read (a kind registered later shows after a reload)
  kinds: null,
  // per folder, the last run's choice ({kind, subfolders}) and what it did
  choices: new Map(),
  processed: new Map(),
};

/** What enqueueFolder did, as a sentence. */
export function processedText(r) {
  const parts = [`Queued ${count(r.queued, 'job')}`,
    `skipped ${count(r.skipped, 'file')} already queued or running`];
  if (r.notApplicable) {
    parts.push(`${count(r.notApplicable, 'file')} the kind does not take`);
  }
  return `${parts.join('; ')}.`;
}

/**
 * The Process folder form of {@code folder} (null below editor): a kind, sub-folders or not, and
 * what the last run did. {@code reload} reads the library again, after a run that queued few enough
 * jobs to show.
 */
export function processFolderForm(folder, reload) {
  if (!canChange()) {
    return null;
  }
  const kinds = state.kinds;
  const selectId = `process-kind-${folder.id}`;
  const subId = `process-sub-${folder.id}`;
  const select = h('select', { id: selectId, name: 'kind', class: 'kind' },
    (kinds || []).map((k) => h('option', { value: k.name }, kindLabel(k))));
  const sub = h('input', { type: 'checkbox', id: subId, name: 'includeSubfolders', class: 'subfolders' });
  const choice = state.choices.get(folder.id);
  if (choice && (kinds || []).some((k) => k.name === choice.kind)) {
    select.value = choice.kind;
    sub.checked = choice.subfolders;
  }
  const button = h('button', { type: 'submit', class: 'secondary process', disabled: !kinds || !kinds.length },
    'Process folder');
  const result = h('p', { class: 'process-result', id: `process-result-${folder.id}` },
    state.processed.get(folder.id) || '');
  const form = h('form', { class: 'process-folder', 'aria-label': `Process every file of ${folder.name}` },
    h('div', { class: 'field' }, h('label', { for: selectId }, 'Process every file as'), select),
    h('div', { class: 'field check' }, sub, h('label', { for: subId }, 'Include sub-folders')),
    button, result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!select.value) {
      return;
    }
    button.disabled = true;
    state.choices.set(folder.id, { kind: select.value, subfolders: sub.checked });
    result.textContent = 'Queueing…';
    try {
      const data = await gql('mutation($f: ID!, $k: String!, $s: Boolean!) { enqueueFolder(folderId: $f, kind: $k, '
        + 'includeSubfolders: $s) { queued skipped notApplicable } }', { f: folder.id, k: select.value, s: sub.checked });
      const r = data.enqueueFolder;
      const text = `${select.value}: ${processedText(r)}${r.queued > REDRAW_UP_TO ? ' Refresh to see the new jobs.' : ''}`;
      state.processed.set(folder.id, text);
      result.textContent = text;
      say(statusRegion(), `${folder.name}: ${text}`);
      if (r.queued > 0 && r.queued <= REDRAW_UP_TO) {
        await reload();
      }
    } catch (e) {
      result.textContent = '';
      say(statusRegion(), `Could not process ${folder.name}: ${problem(e)}`, 'error');
    } finally {
      button.disabled = false; // a redraw replaced this form with a fresh one; without one, this is the form
    }
  });
  return form;
}

/** Every kind, for the Process folder forms (read once; a kind registered later shows after a reload). */
export async function loadAllKinds(folders, reload) {
  if (!canChange() || state.kinds || !folders.length) {
    return;
  }
  try {
    const data = await gql('{ pipelineKinds { name live builtin workerSeenAt } }');
    state.kinds = data.pipelineKinds;
  } catch (e) {
    say(statusRegion(), `Could not read the kinds: ${problem(e)}`, 'error');
    return;
  }
  for (const folder of folders) {
    const old = document.querySelector(`details[data-folder-id="${folder.id}"] > .folder-body > form.process-folder`);
    const fresh = processFolderForm(folder, reload);
    if (old && fresh) {
      old.replaceWith(fresh);
    }
  }
}
