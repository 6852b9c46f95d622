// The members desk's keyboard: j and k move the current row, Enter opens or closes its detail, s and
// n vote on it, x selects it (the table); a click or Tab into a row makes it the current one. The
// same keys work on the cards and on the table's rows. Keys act only while the roster is on screen
// and nobody is typing.
import { typing } from './ui.js';

/**
 * Listens for the desk's keys. desk:
 *   state       the desk's state: rows, and current (the index of the current row, -1 for none)
 *   list        the element holding the rows (the cards' list and the table)
 *   rowId(slug) the id of a row's element
 *   visible()   whether the roster is on screen
 *   toggle(slug)        Enter: open or close the row's detail
 *   voteKey(row, key)   s or n on the current row
 *   selectKey(row)      x on the current row
 *   noRow()             s or n with no current row
 */
export function mountKeyboard(desk) {
  const { state, list, rowId } = desk;
  const $ = (id) => document.getElementById(id);

  function setCurrent(index, { focus = true } = {}) {
    if (!state.rows.length) {
      return;
    }
    const next = Math.max(0, Math.min(state.rows.length - 1, index));
    const previous = state.rows[state.current];
    state.current = next;
    if (previous) {
      const el = $(rowId(previous.slug));
      if (el) {
        el.classList.remove('current');
        el.removeAttribute('aria-current');
      }
    }
    const el = $(rowId(state.rows[next].slug));
    if (el) {
      el.classList.add('current');
      el.setAttribute('aria-current', 'true');
      if (focus) {
        el.focus();
        el.scrollIntoView({ block: 'nearest' });
      }
    }
  }

  document.addEventListener('keydown', (event) => {
    // a row's selection box is no place to type: the keys go on working there
    const onPick = event.target instanceof Element && event.target.matches('input.pick');
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || (typing(event) && !onPick)
      || !desk.visible()) {
      return;
    }
    const row = state.rows[state.current];
    switch (event.key) {
      case 'j':
        event.preventDefault();
        setCurrent(state.current + 1);
        break;
      case 'k':
        event.preventDefault();
        setCurrent(state.current < 0 ? 0 : state.current - 1);
        break;
      case 'Enter':
        // Enter on a button or link inside a row does what that control does
        if (row && (event.target === document.body || event.target.id === rowId(row.slug))) {
          event.preventDefault();
          desk.toggle(row.slug);
        }
        break;
      case 'x':
        if (row) {
          event.preventDefault();
          desk.selectKey(row);
        }
        break;
      case 's':
      case 'n':
        if (!row) {
          desk.noRow();
          break;
        }
        event.preventDefault();
        desk.voteKey(row, event.key);
        break;
      default:
    }
  });

  // a click or Tab into a row makes it the current one
  list.addEventListener('focusin', (event) => {
    const el = event.target.closest('[data-slug]');
    if (el) {
      const i = state.rows.findIndex((r) => r.slug === el.dataset.slug);
      if (i >= 0 && i !== state.current) {
        setCurrent(i, { focus: false });
      }
    }
  });
}
