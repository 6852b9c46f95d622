// The jobs view's Workers tab (administrators): every registered worker, whether it is live, when it
// was last seen, its version, kinds and the jobs it holds, and Revoke (revokeWorker) after a
// confirmation.
import { gql } from './api.js';
import { confirmDialog, h, say, when } from './ui.js';
import { $, problem, statusRegion } from './jobs-common.js';

const WORKER = 'id name version kinds contract registeredAt lastSeenAt revokedAt live activeJobs';

function workerElement(w) {
  // one element in each cell: on a narrow screen a cell is a grid of its label and its content
  const cell = (label, ...children) => h('td', { 'data-label': label }, h('div', null, ...children));
  return h('tr', { class: 'worker-row', id: `worker-${w.id}`, 'data-worker-id': w.id },
    h('th', { scope: 'row', 'data-label': 'Worker' }, h('div', null, h('span', { class: 'name' }, w.name),
      h('span', { class: 'meta' }, ` contract ${w.contract}`))),
    cell('Live', h('span', { class: ['badge', w.revokedAt ? 'red' : w.live ? 'green' : ''] },
      w.revokedAt ? 'Revoked' : w.live ? 'Live' : 'Not seen lately')),
    cell('Last seen', w.lastSeenAt ? when(w.lastSeenAt) : 'never'),
    cell('Version', w.version),
    cell('Kinds', w.kinds.join(', ')),
    cell('Active jobs', String(w.activeJobs)),
    cell('Actions', w.revokedAt ? ['revoked ', when(w.revokedAt)] : h('button', {
      type: 'button', class: 'danger revoke', 'aria-label': `Revoke ${w.name}`, onclick: () => revoke(w),
    }, 'Revoke')));
}

async function revoke(worker) {
  $('revoke-name').textContent = worker.name;
  if (await confirmDialog($('revoke-dialog')) === null) {
    return;
  }
  try {
    const data = await gql(`mutation($id: ID!) { revokeWorker(id: $id) { ${WORKER} } }`, { id: worker.id });
    const el = $(`worker-${worker.id}`);
    if (el) {
      el.replaceWith(workerElement(data.revokeWorker));
    }
    say(statusRegion(), `${worker.name} is revoked.`);
  } catch (e) {
    say(statusRegion(), `Could not revoke ${worker.name}: ${problem(e)}`, 'error');
  }
}

/** Reads the workers and draws the table. */
export async function loadWorkers() {
  try {
    const data = await gql(`{ pipelineWorkers { ${WORKER} } }`);
    const workers = data.pipelineWorkers;
    $('workers').replaceChildren(...(workers.length ? workers.map(workerElement)
      : [h('tr', null, h('td', { colspan: '7', class: 'empty' }, 'No worker has registered yet.'))]));
  } catch (e) {
    say(statusRegion(), `Could not read the workers: ${problem(e)}`, 'error');
  }
}
