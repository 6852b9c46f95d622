// Bulk votes on the members desk's table: select rows (a box each, one for the whole page, or x on
// the current row), choose Spam or Not spam, confirm once, and the votes go out one request per
// member, one after another, each its own commit through the writer with the server's rules
// applied to that member. Each row shows its own result. A write limit (429) or an unavailable
// writer (503) stops the run: the rest are marked "not sent", never retried by themselves.
import { api, ApiError } from './api.js';
import { verdictWord } from './members-parts.js';
import { confirmDialog, count } from './ui.js';

const $ = (id) => document.getElementById(id);

// the answers after which sending the next vote cannot go better: stop and say when to try again
function stopReason(e) {
  const wait = e.retryAfter ? `try again in ${e.retryAfter} s` : 'try again later';
  if (e.status === 429) {
    return `write limit, ${wait}`;
  }
  if (e.status === 503) {
    return `the server cannot save now (${e.code.replaceAll('_', ' ')}), ${wait}`;
  }
  if (e.status === 0) {
    return 'the server could not be reached';
  }
  return null;
}

function asApiError(e) {
  return e instanceof ApiError ? e : new ApiError(0, 'network', 'The vote was not saved.');
}

/** Sends one vote; answers the row's result ({kind, text}) and, when the run must stop, why. */
async function sendOne(slug, verdict, reasoning) {
  const body = { verdict };
  if (reasoning) {
    body.reasoning = reasoning;
  }
  try {
    await api(`/api/admin/members/${encodeURIComponent(slug)}/vote`, { method: 'POST', body });
    return { result: { kind: 'ok', text: `Voted ${verdictWord(verdict).toLowerCase()}` } };
  } catch (caught) {
    const e = asApiError(caught);
    const stop = stopReason(e);
    if (stop) {
      return { result: { kind: 'refused', text: `Not saved: ${stop} (${e.code})` }, stop };
    }
    return { result: { kind: 'refused', text: `Refused, ${e.code.replaceAll('_', ' ')}: ${e.describe()}` } };
  }
}

/** Wires the selection boxes, the bulk bar and its dialog; adds desk.select and desk.selectionChanged. */
export function mountBulk(desk) {
  const { state } = desk;
  const selectAll = $('select-all');

  function selectable() {
    return state.rows.filter((r) => !(state.me !== null && r.id === state.me.id));
  }

  desk.selectionChanged = () => {
    const n = state.selected.size;
    $('bulk-count').textContent = n ? `${count(n, 'member')} selected` : 'None selected';
    $('bulk-spam').disabled = n === 0 || state.bulkRunning;
    $('bulk-legit').disabled = n === 0 || state.bulkRunning;
    const all = selectable();
    selectAll.checked = all.length > 0 && all.every((r) => state.selected.has(r.slug));
    selectAll.indeterminate = n > 0 && !selectAll.checked;
    selectAll.disabled = state.bulkRunning || all.length === 0;
  };

  desk.select = (slug, on, { fromKey = false } = {}) => {
    const row = state.rows.find((r) => r.slug === slug);
    if (state.mode !== 'table' && fromKey) {
      desk.say('Rows are selected in the table: choose View: Table.');
      return;
    }
    if (state.mode !== 'table' || state.bulkRunning || !row) {
      return;
    }
    if (state.me !== null && row.id === state.me.id) {
      desk.say('You cannot vote on yourself, so your own row cannot be selected.', 'error');
      return;
    }
    if (on) {
      state.selected.add(slug);
    } else {
      state.selected.delete(slug);
    }
    if (fromKey) {
      const box = document.querySelector(`#${desk.rowId(slug)} input.pick`);
      if (box) {
        box.checked = on;
      }
    }
    desk.selectionChanged();
  };

  selectAll.addEventListener('change', () => {
    for (const row of selectable()) {
      if (selectAll.checked) {
        state.selected.add(row.slug);
      } else {
        state.selected.delete(row.slug);
      }
    }
    for (const box of document.querySelectorAll('#members-table input.pick:not([disabled])')) {
      box.checked = selectAll.checked;
    }
    desk.selectionChanged();
  });

  async function run(verdict) {
    const rows = state.rows.filter((r) => state.selected.has(r.slug));
    if (!rows.length || state.bulkRunning) {
      return;
    }
    const word = verdictWord(verdict).toLowerCase();
    const voted = rows.filter((r) => r.latestVote).length;
    $('bulk-title').textContent = `Mark ${count(rows.length, 'member')} as ${word}?`;
    $('bulk-names').textContent = rows.map((r) => r.fullName).join(', ');
    $('bulk-effect').textContent = verdict === 'spam'
      ? 'Each one is hidden at once. Their records stay until a purge.'
      : 'A member hidden by a spam vote is shown again.';
    $('bulk-replaces').textContent = voted ? `${count(voted, 'of them has', 'of them have')} a person's vote already:`
      + ' this vote replaces it.' : '';
    $('bulk-confirm').textContent = `Mark ${rows.length} as ${word}`;
    $('bulk-confirm').className = verdict === 'spam' ? 'danger' : 'legit';
    const reasoning = await confirmDialog($('bulk-dialog'));
    if (reasoning === null) {
      desk.say('Nothing was sent.');
      return;
    }
    state.bulkRunning = true;
    for (const row of rows) {
      state.results.set(row.slug, { kind: 'waiting', text: 'Waiting…' });
      state.errors.delete(row.slug);
    }
    // every row is drawn again: the boxes are locked while the run goes
    state.rows.forEach(desk.renderRow);
    desk.selectionChanged();
    const tally = { ok: 0, refused: 0, notSent: 0 };
    const sent = [];
    let stop = null;
    // one after another: each vote is its own commit, and the next one's checks see its result
    for (const row of rows) {
      if (stop) {
        state.results.set(row.slug, { kind: 'not-sent', text: `Not sent: ${stop}` });
        tally.notSent++;
        desk.renderRow(row);
        continue;
      }
      state.results.set(row.slug, { kind: 'sending', text: 'Sending…' });
      state.busy.add(row.slug);
      desk.renderRow(row);
      desk.say(`Voting ${word}: ${sent.length + 1} of ${rows.length}…`);
      const outcome = await sendOne(row.slug, verdict, reasoning);
      state.busy.delete(row.slug);
      sent.push(row.slug);
      state.results.set(row.slug, outcome.result);
      tally[outcome.result.kind === 'ok' ? 'ok' : 'refused']++;
      if (outcome.result.kind === 'ok') {
        state.selected.delete(row.slug);
        state.changing.delete(row.slug);
      }
      stop = outcome.stop || null;
      desk.renderRow(row);
    }
    // as after a single vote: each row sent is read again and drawn from the answer
    let gone = 0;
    for (const slug of sent) {
      try {
        gone += (await desk.refreshRow(slug, { quiet: true })) === null ? 1 : 0;
      } catch (e) {
        // the row keeps its result; the next load shows the member as they are
      }
    }
    state.bulkRunning = false;
    state.rows.forEach(desk.renderRow);
    desk.selectionChanged();
    desk.say(`${verdictWord(verdict)} votes: ${tally.ok} saved, ${tally.refused} refused`
      + `${tally.notSent ? `, ${tally.notSent} not sent (${stop})` : ''}.`
      + `${gone ? ` ${count(gone, 'member is', 'members are')} no longer on the roster.` : ''}`,
    tally.refused || tally.notSent ? 'error' : '');
  }

  $('bulk-spam').addEventListener('click', () => run('spam'));
  $('bulk-legit').addEventListener('click', () => run('legit'));
}
