// The members desk's two tabs, the roster and the purge log (a tablist: the arrow keys, Home and
// End move between them); the purge log's tab is kept in the address as #purge-log.
import { showPurgeLog } from './purge-log.js';

const $ = (id) => document.getElementById(id);
const tabs = [$('tab-members'), $('tab-purges')];

/** Shows a tab's panel (focus: move the keyboard focus to the tab too). */
export function selectTab(tab, { focus = false } = {}) {
  for (const t of tabs) {
    const selected = t === tab;
    t.setAttribute('aria-selected', selected ? 'true' : 'false');
    t.tabIndex = selected ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !selected;
  }
  if (focus) {
    tab.focus();
  }
  const hash = tab.id === 'tab-purges' ? '#purge-log' : '';
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
  if (tab.id === 'tab-purges') {
    showPurgeLog();
  }
}

/** Wires the tabs: a click, or the arrow keys, Home and End on a tab. */
export function mountTabs() {
  for (const tab of tabs) {
    tab.addEventListener('click', () => selectTab(tab));
    tab.addEventListener('keydown', (event) => {
      const i = tabs.indexOf(tab);
      let next = null;
      if (event.key === 'ArrowRight') {
        next = tabs[(i + 1) % tabs.length];
      } else if (event.key === 'ArrowLeft') {
        next = tabs[(i - 1 + tabs.length) % tabs.length];
      } else if (event.key === 'Home') {
        next = tabs[0];
      } else if (event.key === 'End') {
        next = tabs[tabs.length - 1];
      }
      if (next) {
        event.preventDefault();
        selectTab(next, { focus: true });
      }
    });
  }
}
