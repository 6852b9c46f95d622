// The members desk's compact table: one line a member (a selection box, the name, the handle, when
// they joined, the signals in short form, the vote, the quick vote buttons and the result of the
// last vote), so a laptop screen shows 15 or more at once. Cards or Table is a per-browser choice
// kept in localStorage, not in the address: it suits a screen, not a view worth sharing.
import { detailContent, shortSignals, tint, verdictWord, voterName } from './members-parts.js';
import { badge, day, h, joined, when } from './ui.js';

const MODE_KEY = 'shotstash.membersDesk.view';
const COLUMNS = 8;

const $ = (id) => document.getElementById(id);

function storedMode() {
  try {
    return window.localStorage.getItem(MODE_KEY) === 'table' ? 'table' : 'cards';
  } catch (e) {
    return 'cards'; // storage refused (a private window's policy): the cards, as before
  }
}

function storeMode(mode) {
  try {
    window.localStorage.setItem(MODE_KEY, mode);
  } catch (e) {
    // not remembered; the choice still holds for this page
  }
}

/**
 * Wires the "Cards | Table" radio group: the stored choice is shown at the start; a change is
 * stored and the page drawn again (redraw()) with the rows it already has.
 */
export function mountModeSwitch(desk, redraw) {
  const { state } = desk;
  state.mode = storedMode();
  $(`view-${state.mode}`).checked = true;
  for (const mode of ['cards', 'table']) {
    $(`view-${mode}`).addEventListener('change', () => {
      if (!$(`view-${mode}`).checked) {
        return;
      }
      state.mode = mode;
      storeMode(mode);
      redraw();
      desk.say(mode === 'table' ? 'Showing the members as a table.' : 'Showing the members as cards.');
    });
  }
}

function voteSummary(row) {
  const latest = row.latestVote;
  let text;
  if (latest) {
    text = [h('span', { class: ['verdict', latest.verdict] }, verdictWord(latest.verdict)),
      ` · ${voterName(latest.voter)} · `, when(latest.evaluatedAt)];
  } else if (row.stagedVote) {
    const s = row.stagedVote;
    text = [h('span', { class: 'badge staged' }, 'Staged'), ' ',
      h('span', { class: ['verdict', s.verdict] }, verdictWord(s.verdict)), ` · ${voterName(s.agent)} (agent)`];
  } else {
    text = h('span', { class: 'no-vote' }, 'No vote yet');
  }
  return [text, row.deletedAt ? ' · hidden' : null];
}

/** The last vote's outcome on this row: a bulk vote's result, a refused single vote, or Saving… */
function resultCell(desk, row, own) {
  const { state } = desk;
  const result = state.results.get(row.slug);
  const error = state.errors.get(row.slug);
  let content = null;
  if (result) {
    content = h('span', { class: ['result', result.kind] }, result.text);
  } else if (error) {
    content = h('span', { class: 'result refused' }, error);
  } else if (state.busy.has(row.slug)) {
    content = h('span', { class: 'result sending' }, 'Saving…');
  } else if (own) {
    content = h('span', { class: 'own' }, 'This is you');
  }
  return h('td', { class: 'col-result' }, content);
}

/** One member as table rows: its line and, when open, its detail; a <tbody> of their own. */
export function tableMember(desk, row) {
  const { state } = desk;
  const id = desk.rowId(row.slug);
  const own = state.me !== null && row.id === state.me.id;
  const expanded = state.expanded.has(row.slug);
  const signals = shortSignals(row);
  const current = state.rows[state.current] && state.rows[state.current].slug === row.slug;
  const tr = h('tr', {
    id,
    class: ['member-row', tint(row) && `tint-${tint(row)}`, row.deletedAt && 'dimmed', current && 'current'],
    tabindex: '-1',
    'data-slug': row.slug,
    'aria-current': current ? 'true' : null,
  },
  h('td', { class: 'col-pick' }, h('input', {
    type: 'checkbox',
    class: 'pick',
    'aria-label': `Select ${row.fullName}`,
    checked: state.selected.has(row.slug),
    disabled: own || state.bulkRunning,
    title: own ? 'You cannot vote on yourself' : null,
    onchange: (event) => desk.select(row.slug, event.target.checked),
  })),
  h('th', { scope: 'row', class: 'col-name', id: `${id}-name` },
    h('a', { class: 'clip', href: `/api/people/${encodeURIComponent(row.slug)}`, title: row.fullName }, row.fullName)),
  h('td', { class: 'col-slug' }, h('span', { class: 'clip' }, `@${row.slug}`)),
  h('td', { class: 'col-joined' }, when(row.createdAt, day(row.createdAt))),
  h('td', { class: 'col-signals', title: signals.join(', ') || null },
    h('span', { class: 'clip' },
      row.attention > 0 ? badge(String(row.attention), tint(row) || '', 'Attention: how many warning signals') : null,
      row.attention > 0 && signals.length ? ' ' : null,
      joined(signals, ', '))),
  h('td', { class: 'col-vote' }, h('span', { class: 'clip' }, voteSummary(row))),
  h('td', { class: 'col-actions vote' },
    h('div', { class: 'quick' },
      desk.voteControls(row),
      h('button', {
        type: 'button', class: 'linklike expand', 'aria-expanded': expanded ? 'true' : 'false',
        'aria-controls': `${id}-detail`, 'aria-label': `Details of ${row.fullName}`,
        onclick: () => desk.toggle(row.slug),
      }, expanded ? 'Hide' : 'Details'))),
  resultCell(desk, row, own));
  const detail = h('tr', { class: 'detail-row', id: `${id}-detail`, hidden: !expanded },
    h('td', { colspan: String(COLUMNS) },
      expanded ? [h('h3', null, `Details of ${row.fullName} (@${row.slug})`),
        detailContent(row.slug, state.details.get(row.slug))] : null));
  return h('tbody', { class: 'member-group' }, tr, detail);
}

/** Draws these rows into the table (none: the cards are on screen) and the select-all box. */
export function renderTable(desk, rows) {
  const table = $('members-table');
  for (const body of [...table.tBodies]) {
    body.remove();
  }
  table.append(...rows.map((row) => tableMember(desk, row)));
  desk.selectionChanged();
}
