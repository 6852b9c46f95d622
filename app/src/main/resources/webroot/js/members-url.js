// The members desk's view in the address: the filters, the page and the page size. A link
// reproduces the view, and each change the person makes is a history step (Back and Forward walk
// the views). The Cards | Table choice is not here: it is a per-browser preference
// (members-table.js), so a shared link opens in the reader's own mode.

export const PER_PAGE = 50;
const DEFAULTS = { vote: 'none', sort: '-createdAt', includeDeactivated: 'true' };

const $ = (id) => document.getElementById(id);

/** Sets the filter fields, state.page and state.perPage from the address. */
export function readUrl(state) {
  const params = new URLSearchParams(window.location.search);
  $('f-q').value = params.get('q') || '';
  const vote = params.get('vote');
  $('f-vote').value = vote === 'any' ? '' : ['none', 'staged', 'spam', 'legit'].includes(vote) ? vote : DEFAULTS.vote;
  $('f-origin').value = ['imported', 'signed-up'].includes(params.get('origin')) ? params.get('origin') : '';
  $('f-after').value = params.get('joinedAfter') || '';
  $('f-before').value = params.get('joinedBefore') || '';
  const sort = params.get('sort');
  $('f-sort').value = ['-createdAt', 'fullName', '-lastLoginAt'].includes(sort) ? sort : DEFAULTS.sort;
  $('f-deactivated').checked = params.get('includeDeactivated') !== 'false';
  const page = Number.parseInt(params.get('page') || '1', 10);
  state.page = Number.isFinite(page) && page > 0 ? page : 1;
  // the page size the roster route takes (1-100); a link may carry its own
  const perPage = Number.parseInt(params.get('perPage') || String(PER_PAGE), 10);
  state.perPage = Number.isFinite(perPage) && perPage >= 1 && perPage <= 100 ? perPage : PER_PAGE;
}

/** The query of GET /api/admin/members for the filters and the page. */
export function rosterQuery(state) {
  return {
    q: $('f-q').value.trim(),
    vote: $('f-vote').value,
    origin: $('f-origin').value,
    joinedAfter: $('f-after').value,
    joinedBefore: $('f-before').value,
    sort: $('f-sort').value,
    includeDeactivated: $('f-deactivated').checked ? 'true' : 'false',
    page: state.page,
    perPage: state.perPage || PER_PAGE,
  };
}

/**
 * Puts the view in the address: a link reproduces it. A change the person made (a filter, a page)
 * is a new history entry, so Back and Forward walk through the views; loading what the address
 * already says (the start, Back, Forward) only rewrites it in place.
 */
export function writeUrl(state, push) {
  const q = rosterQuery(state);
  const params = new URLSearchParams();
  for (const key of ['q', 'origin', 'joinedAfter', 'joinedBefore']) {
    if (q[key]) {
      params.set(key, q[key]);
    }
  }
  if (q.vote !== DEFAULTS.vote) {
    params.set('vote', q.vote || 'any');
  }
  if (q.sort !== DEFAULTS.sort) {
    params.set('sort', q.sort);
  }
  if (q.includeDeactivated !== DEFAULTS.includeDeactivated) {
    params.set('includeDeactivated', q.includeDeactivated);
  }
  if (state.page > 1) {
    params.set('page', String(state.page));
  }
  if (q.perPage !== PER_PAGE) {
    params.set('perPage', String(q.perPage));
  }
  const search = params.toString();
  const url = `${window.location.pathname}${search ? `?${search}` : ''}${window.location.hash}`;
  const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
  if (push && url !== here) {
    window.history.pushState(null, '', url);
  } else {
    window.history.replaceState(null, '', url);
  }
}
