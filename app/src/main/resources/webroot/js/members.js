// The members desk: the roster of GET /api/admin/members with its filters (kept in the address,
// members-url.js), shown as cards or as a compact table (members-table.js), votes through
// POST /api/admin/members/:slug/vote one at a time or several at once (members-bulk.js), the
// detail of GET /api/admin/members/:slug, and the tabs between the roster and the purge log
// (members-tabs.js, purge-log.js); its keys are in members-keyboard.js. A row is only ever redrawn
// from what the server answered.
import { api, ApiError, currentPerson } from './api.js';
import { mountBulk } from './members-bulk.js';
import { mountKeyboard } from './members-keyboard.js';
import { cardMember } from './members-cards.js';
import { rowFromDetail, verdictWord } from './members-parts.js';
import { mountModeSwitch, renderTable, tableMember } from './members-table.js';
import { mountTabs, selectTab } from './members-tabs.js';
import { readUrl, rosterQuery, writeUrl } from './members-url.js';
import { mountPurgeLog } from './purge-log.js';
import { confirmDialog, count, h, mountHeader, pager, say, signedOutMessage } from './ui.js';

const state = {
  me: null,
  rows: [],
  current: -1,
  page: 1,
  mode: 'cards',
  expanded: new Set(),
  details: new Map(),
  changing: new Set(),
  busy: new Set(),
  errors: new Map(),
  // the table's selection (slugs on this page) and each row's result of the last bulk vote
  selected: new Set(),
  results: new Map(),
  bulkRunning: false,
};

const $ = (id) => document.getElementById(id);
const list = $('members');
const statusRegion = $('members-status');
const filters = $('filters');

// ---------------------------------------------------------------- loading

/**
 * Loads the roster the filters and page describe. {@code push}: the person changed the view (a new
 * history entry); {@code toTop}: a new page, whose first row is put at the top with the focus.
 */
async function loadMembers({ keepCurrent = false, push = true, toTop = false } = {}) {
  writeUrl(state, push);
  say(statusRegion, 'Loading members…');
  list.setAttribute('aria-busy', 'true');
  try {
    const answer = await api('/api/admin/members', { query: rosterQuery(state) });
    const meta = answer.metadata;
    state.rows = answer.data;
    state.totalItems = meta.totalItems;
    state.totalPages = meta.totalPages;
    state.page = meta.page;
    if (!keepCurrent) {
      state.current = -1;
    }
    // a selection and bulk results belong to the page they were made on
    state.selected.clear();
    state.results.clear();
    state.current = Math.min(state.current, state.rows.length - 1);
    renderList();
    pager($('members-pager'), meta.page, meta.totalPages, (page) => {
      state.page = page;
      loadMembers({ toTop: true });
    });
    if (toTop && state.rows.length) {
      const first = $(rowId(state.rows[0].slug));
      state.current = 0;
      first.classList.add('current');
      first.setAttribute('aria-current', 'true');
      first.scrollIntoView({ block: 'start' });
      first.focus({ preventScroll: true });
    }
    say(statusRegion, state.rows.length
      ? `${count(meta.totalItems, 'member')} match. Page ${meta.page} of ${meta.totalPages}.`
      : 'No member matches these filters.');
  } catch (e) {
    say(statusRegion, signedOutMessage(e), 'error');
  } finally {
    list.removeAttribute('aria-busy');
  }
}

/**
 * Reads one member again (the detail route has every roster field) and redraws the row; answers
 * null, after taking the row away, when the member is no longer there.
 */
async function refreshRow(slug, { quiet = false } = {}) {
  try {
    const detail = (await api(`/api/admin/members/${encodeURIComponent(slug)}`)).data;
    state.details.set(slug, detail);
    const i = state.rows.findIndex((r) => r.slug === slug);
    if (i >= 0) {
      state.rows[i] = rowFromDetail(detail);
      renderRow(state.rows[i]);
    }
    return detail;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      const i = state.rows.findIndex((r) => r.slug === slug);
      if (i >= 0) {
        state.rows.splice(i, 1);
        const el = $(rowId(slug));
        if (el) {
          (el.closest('tbody') || el).remove();
        }
        state.current = Math.min(state.current, state.rows.length - 1);
      }
      if (!quiet) {
        say(statusRegion, `@${slug} is no longer on the roster (purged, or you may no longer read it).`, 'error');
      }
      return null;
    }
    throw e;
  }
}

// ---------------------------------------------------------------- rendering

const rowId = (slug) => `m-${slug}`;


function voteButtons(row, own, busy) {
  const disabled = own || busy;
  return h('div', { class: 'buttons' },
    h('button', {
      type: 'button', class: 'danger vote-spam', disabled,
      'aria-label': `Spam: ${row.fullName}`, onclick: () => spamFlow(row.slug),
    }, 'Spam'),
    h('button', {
      type: 'button', class: 'legit vote-legit', disabled,
      'aria-label': `Not spam: ${row.fullName}`, onclick: () => vote(row.slug, 'legit', ''),
    }, 'Not spam'),
    state.changing.has(row.slug) ? h('button', {
      type: 'button', class: 'secondary', disabled: busy,
      onclick: () => {
        state.changing.delete(row.slug);
        renderRow(row);
        focusRow(row.slug, '.change');
      },
    }, 'Keep') : null);
}

/** The vote buttons, or Change where a person has voted already (the cards and the table). */
function voteControls(row) {
  const own = state.me !== null && row.id === state.me.id;
  const busy = state.busy.has(row.slug);
  if (!row.latestVote || state.changing.has(row.slug)) {
    return voteButtons(row, own, busy);
  }
  return h('button', {
    type: 'button', class: 'linklike change', disabled: own || busy,
    'aria-label': `Change the vote on ${row.fullName}`,
    onclick: () => {
      state.changing.add(row.slug);
      renderRow(row);
      focusRow(row.slug, '.vote-legit');
    },
  }, 'Change');
}


/** Draws the page in the current mode: the cards, or the table. */
function renderList() {
  const table = state.mode === 'table';
  list.hidden = table;
  $('members-table-wrap').hidden = !table;
  $('bulk').hidden = !table;
  document.body.classList.toggle('table-mode', table);
  // only the view on screen holds the rows, so a row's id stays unique
  list.replaceChildren(...(table ? [] : state.rows.map((row) => cardMember(desk, row))));
  renderTable(desk, table ? state.rows : []);
}

/** Redraws one row in place, keeping the keyboard focus where it was. */
function renderRow(row) {
  const old = $(rowId(row.slug));
  if (!old) {
    return;
  }
  // a card is its <li>; a table row lives in its own <tbody> with its detail row
  const outer = old.closest('tbody') || old;
  const hadFocus = outer.contains(document.activeElement);
  const focusedWasRow = document.activeElement === old;
  outer.replaceWith(state.mode === 'table' ? tableMember(desk, row) : cardMember(desk, row));
  const fresh = $(rowId(row.slug));
  if (hadFocus) {
    (focusedWasRow ? fresh : fresh.querySelector('.vote button:not([disabled])') || fresh).focus();
  }
}

function focusRow(slug, selector) {
  const el = $(rowId(slug));
  if (!el) {
    return;
  }
  const target = selector ? el.querySelector(selector) : null;
  (target && !target.disabled ? target : el).focus();
}

// ---------------------------------------------------------------- the detail

async function toggle(slug) {
  if (state.expanded.has(slug)) {
    state.expanded.delete(slug);
    const row = state.rows.find((r) => r.slug === slug);
    if (row) {
      renderRow(row);
    }
    return;
  }
  state.expanded.add(slug);
  state.details.delete(slug);
  const row = state.rows.find((r) => r.slug === slug);
  if (row) {
    renderRow(row);
  }
  try {
    await refreshRow(slug);
  } catch (e) {
    state.expanded.delete(slug);
    if (row) {
      renderRow(row);
    }
    say(statusRegion, `Could not load the details of @${slug}: ${signedOutMessage(e)}`, 'error');
  }
}

// ---------------------------------------------------------------- votes

function rowBySlug(slug) {
  return state.rows.find((r) => r.slug === slug) || null;
}

async function spamFlow(slug) {
  const row = rowBySlug(slug);
  if (!row) {
    return;
  }
  $('spam-name').textContent = row.fullName;
  const reasoning = await confirmDialog($('spam-dialog'));
  if (reasoning === null) {
    say(statusRegion, 'Not marked as spam.');
    focusRow(slug);
    return;
  }
  await vote(slug, 'spam', reasoning);
}

async function vote(slug, verdict, reasoning) {
  const row = rowBySlug(slug);
  if (!row || state.busy.has(slug)) {
    return;
  }
  state.busy.add(slug);
  state.errors.delete(slug);
  renderRow(row);
  const body = { verdict };
  if (reasoning) {
    body.reasoning = reasoning;
  }
  try {
    await api(`/api/admin/members/${encodeURIComponent(slug)}/vote`, { method: 'POST', body });
    state.changing.delete(slug);
    state.busy.delete(slug);
    await refreshRow(slug);
    say(statusRegion, `${row.fullName}: ${verdictWord(verdict).toLowerCase()} vote saved.`);
  } catch (e) {
    state.busy.delete(slug);
    const message = e instanceof ApiError ? e.describe() : 'The vote was not saved.';
    state.errors.set(slug, `The vote was not saved: ${message}`);
    let gone = false;
    try {
      gone = (await refreshRow(slug, { quiet: true })) === null;
    } catch (again) {
      const current = rowBySlug(slug);
      if (current) {
        renderRow(current);
      }
    }
    say(statusRegion, `${row.fullName}: the vote was not saved. ${message}`
      + `${gone ? ` @${slug} is no longer on the roster.` : ''}`, 'error');
  }
  focusRow(slug);
}

function searchDomain(domain) {
  $('f-q').value = `@${domain}`;
  state.page = 1;
  loadMembers();
  $('f-q').focus();
}

// ---------------------------------------------------------------- the keyboard

/** s or n on the current row: the same vote its buttons make, where they would be there. */
function voteKey(row, key) {
  const own = state.me !== null && row.id === state.me.id;
  if (own) {
    say(statusRegion, 'You cannot vote on yourself.', 'error');
  } else if (row.latestVote && !state.changing.has(row.slug)) {
    say(statusRegion, `${row.fullName} already has a vote. Choose Change to vote again.`);
  } else if (key === 's') {
    spamFlow(row.slug);
  } else {
    vote(row.slug, 'legit', '');
  }
}

const desk = {
  state,
  rowId,
  voteControls,
  toggle,
  searchDomain,
  refreshRow,
  renderRow,
  say: (message, kind) => say(statusRegion, message, kind),
};

mountKeyboard({
  state,
  list: $('panel-members'),
  rowId,
  visible: () => !$('panel-members').hidden,
  toggle,
  voteKey,
  selectKey: (row) => desk.select(row.slug, !state.selected.has(row.slug), { fromKey: true }),
  noRow: () => say(statusRegion, 'Choose a member first: press j.'),
});
mountBulk(desk);
mountModeSwitch(desk, () => renderList());
mountTabs();

// ---------------------------------------------------------------- start

filters.addEventListener('submit', (event) => {
  event.preventDefault();
  state.page = 1;
  loadMembers();
});
for (const id of ['f-vote', 'f-origin', 'f-after', 'f-before', 'f-sort', 'f-deactivated']) {
  $(id).addEventListener('change', () => {
    state.page = 1;
    loadMembers();
  });
}
mountPurgeLog();

async function start() {
  readUrl(state);
  try {
    state.me = await currentPerson();
  } catch (e) {
    state.me = null;
  }
  mountHeader(state.me);
  if (window.location.hash === '#purge-log') {
    selectTab($('tab-purges'));
  }
  await loadMembers({ push: false });
}

// Back and Forward: the address holds the view; show what it says
window.addEventListener('popstate', () => {
  readUrl(state);
  loadMembers({ push: false });
});

start();
