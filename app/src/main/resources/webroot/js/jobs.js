// The jobs view (/admin/jobs): four tabs, each drawn by its own module: Dashboard (jobs-dashboard.js,
// administrators), Jobs (jobs-table.js), Workers (jobs-workers.js, administrators) and Files
// (jobs-files.js, with uploads in jobs-upload.js and Process folder in jobs-folders.js). This module keeps the address: ?tab=…&status=…&kind=…&worker=…&file=…&page=…, so
// a link reproduces a view; each change of tab, filter or page is a history step, and Back and
// Forward walk them. Someone who may not use a tab is not shown it, and an address naming it opens
// their first tab instead.
import { gql } from './api.js';
import { mountHeader, say } from './ui.js';
import { $, isAdmin, kindLabel, problem, session, statusRegion } from './jobs-common.js';
import { loadDashboard } from './jobs-dashboard.js';
import { applyJob, connectLive, loadLibrary } from './jobs-files.js';
import { filtersOfForm, loadJobs } from './jobs-table.js';
import { loadWorkers } from './jobs-workers.js';
import { mountUploads } from './jobs-upload.js';

const TABS = ['dashboard', 'jobs', 'workers', 'files'];
const ADMIN_TABS = new Set(['dashboard', 'workers']);
const FILTERS = ['status', 'kind', 'worker', 'file', 'page'];
/** While the Dashboard is shown, it is read again this often (the history gains a minute a minute). */
const DASHBOARD_EVERY_MS = 30000;

let view = null;
let filesDrawn = false;

const allowed = (tab) => TABS.includes(tab) && (!ADMIN_TABS.has(tab) || isAdmin());
const visibleTabs = () => TABS.filter(allowed);

function readAddress() {
  const params = new URLSearchParams(window.location.search);
  const read = { tab: params.get('tab') };
  for (const key of FILTERS) {
    read[key] = params.get(key) || '';
  }
  if (!allowed(read.tab)) {
    read.tab = visibleTabs()[0];
  }
  return read;
}

function address(of) {
  const params = new URLSearchParams();
  params.set('tab', of.tab);
  for (const key of FILTERS) {
    if (of[key]) {
      params.set(key, of[key]);
    }
  }
  return `${window.location.pathname}?${params}`;
}

/** A new view (a history step): the changes applied to the current one. */
function go(changes, { focusTab = false } = {}) {
  view = { ...view, ...changes };
  window.history.pushState(null, '', address(view));
  show({ focusTab });
}

function show({ focusTab = false } = {}) {
  for (const tab of TABS) {
    const button = $(`tab-${tab}`);
    const selected = tab === view.tab;
    button.hidden = !allowed(tab);
    button.setAttribute('aria-selected', selected ? 'true' : 'false');
    button.tabIndex = selected ? 0 : -1;
    $(`panel-${tab}`).hidden = !selected;
  }
  if (focusTab) {
    $(`tab-${view.tab}`).focus();
  }
  return load(view.tab, false);
}

/** Draws a tab: the Files tab once (its jobs then update live) unless forced, the others every time. */
function load(tab, force) {
  if (tab === 'dashboard') {
    return loadDashboard();
  }
  if (tab === 'jobs') {
    return loadJobs(view, go);
  }
  if (tab === 'workers') {
    return loadWorkers();
  }
  if (force || !filesDrawn) {
    filesDrawn = true;
    return loadLibrary();
  }
  return Promise.resolve();
}

function mountTabs() {
  for (const tab of TABS) {
    const button = $(`tab-${tab}`);
    button.addEventListener('click', () => {
      if (view.tab !== tab) {
        go({ tab });
      }
    });
    button.addEventListener('keydown', (event) => {
      const tabs = visibleTabs();
      const i = tabs.indexOf(tab);
      const next = { ArrowRight: tabs[(i + 1) % tabs.length], ArrowLeft: tabs[(i - 1 + tabs.length) % tabs.length],
        Home: tabs[0], End: tabs[tabs.length - 1] }[event.key];
      if (next) {
        event.preventDefault();
        go({ tab: next }, { focusTab: true });
      }
    });
  }
  $('job-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    go({ ...filtersOfForm(), tab: 'jobs' });
  });
  $('filter-clear').addEventListener('click', () => go({ status: '', kind: '', worker: '', file: '', page: '' }));
  window.addEventListener('popstate', () => {
    view = readAddress();
    show();
  });
  $('refresh').addEventListener('click', () => load(view.tab, true));
  window.setInterval(() => {
    if (view.tab === 'dashboard' && !document.hidden) {
      loadDashboard();
    }
  }, DASHBOARD_EVERY_MS);
}

async function start() {
  try {
    session.me = (await gql('{ me { id slug fullName accountLevel } }')).me;
  } catch (e) {
    say(statusRegion(), problem(e), 'error');
    return;
  }
  mountHeader(session.me);
  view = readAddress();
  mountTabs();
  // a finished upload is a new file in the tree: read the library again
  mountUploads(() => loadLibrary());
  connectLive();
  show();
}

start();

// for the browser tests: the ordering rule of the Files tab, applied to a view they make up
export { applyJob, kindLabel };
