// The members desk: the roster of GET /api/admin/members with its filters, votes through
// POST /api/admin/members/:slug/vote, the detail of GET /api/admin/members/:slug, and the tabs
// between the roster and the purge log (purge-log.js); its keys are in members-keyboard.js. A row
// is only ever redrawn from what the server answered.
import { api, ApiError, currentPerson } from './api.js';
import { mountKeyboard } from './members-keyboard.js';
import { mountPurgeLog, showPurgeLog } from './purge-log.js';
import { ago, badge, confirmDialog, count, day, h, joined, mountHeader, pager, say, signedOutMessage, span, when }
  from './ui.js';

const PER_PAGE = 50;
const DEFAULTS = { vote: 'none', sort: '-createdAt', includeDeactivated: 'true' };

const state = {
  me: null,
  rows: [],
  current: -1,
  page: 1,
  expanded: new Set(),
  details: new Map(),
  changing: new Set(),
  busy: new Set(),
  errors: new Map(),
};

const $ = (id) => document.getElementById(id);
const list = $('members');
const statusRegion = $('members-status');
const filters = $('filters');

// ---------------------------------------------------------------- filters and the URL

function readUrl() {
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

function rosterQuery() {
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
function writeUrl(push) {
  const q = rosterQuery();
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

// ---------------------------------------------------------------- loading

/**
 * Loads the roster the filters and page describe. {@code push}: the person changed the view (a new
 * history entry); {@code toTop}: a new page, whose first row is put at the top with the focus.
 */
async function loadMembers({ keepCurrent = false, push = true, toTop = false } = {}) {
  writeUrl(push);
  say(statusRegion, 'Loading members…');
  list.setAttribute('aria-busy', 'true');
  try {
    const answer = await api('/api/admin/members', { query: rosterQuery() });
    const meta = answer.metadata;
    state.rows = answer.data;
    state.totalItems = meta.totalItems;
    state.totalPages = meta.totalPages;
    state.page = meta.page;
    if (!keepCurrent) {
      state.current = -1;
    }
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
          el.remove();
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

/** The detail's lists become the roster row's counts. */
function rowFromDetail(detail) {
  const row = { ...detail };
  const f = detail.footprint || {};
  row.footprint = {
    memberships: (f.memberships || []).length,
    updates: (f.updates || []).length,
    buzz: (f.buzz || []).length,
    blogPosts: (f.blogPosts || []).length,
    helpWantedInterest: (f.helpWantedInterest || []).length,
    tags: (f.tags || []).length,
  };
  delete row.person;
  delete row.votes;
  delete row.earlierVotes;
  delete row.earlierPurges;
  return row;
}

// ---------------------------------------------------------------- rendering a row

const rowId = (slug) => `m-${slug}`;

function tint(row) {
  if (row.attention >= 5 || (row.github && row.github.status === 'gone') || row.emailBounce) {
    return 'red';
  }
  return row.attention >= 3 ? 'amber' : '';
}

function gitHubBadge(row, signals) {
  const g = row.github;
  if (!g) {
    return null;
  }
  if (g.status === 'gone') {
    return badge(`GitHub @${g.login} · gone`, 'red', 'GitHub answers 404 for this account: deleted or suspended');
  }
  if (g.status !== 'ok') {
    return badge(`GitHub @${g.login} · not checked yet`, '');
  }
  const age = g.accountCreatedAt ? `${span((Date.now() - Date.parse(g.accountCreatedAt)) / 1000)} old` : null;
  const text = joined([`GitHub @${g.login}`, age, count(g.publicRepos, 'repo'), count(g.followers, 'follower')]).join('');
  const warn = signals.has('github-new-account') || signals.has('github-no-activity');
  const why = joined([signals.has('github-new-account') && 'new account', signals.has('github-no-activity') && 'no repos or followers'], ', ')
    .join('');
  return badge(text, warn ? 'amber' : '', why ? `GitHub: ${why}` : 'GitHub account');
}

function badges(row) {
  const signals = new Set(row.signals || []);
  const out = [badge(row.origin === 'imported' ? 'Imported' : 'Signed up', '')];
  out.push(gitHubBadge(row, signals));
  if (row.lastSlackSsoAt) {
    out.push(badge(`Slack · ${ago(row.lastSlackSsoAt)}`, 'green', 'Signed into Slack through the site'));
  }
  if (row.emailBounce) {
    out.push(badge(`Email bounced (${row.emailBounce.type}) · ${day(row.emailBounce.at)}`, 'red'));
  }
  if (signals.has('email-name-mismatch')) {
    out.push(badge('Email does not match name', 'amber'));
  }
  for (const s of signals) {
    if (s.startsWith('bio-links:')) {
      out.push(badge(`${count(Number(s.slice('bio-links:'.length)), 'link')} in bio`, 'amber'));
    }
  }
  if (signals.has('slug-purged-before')) {
    out.push(badge('Slug purged before', 'amber', 'An earlier account under this slug was purged as spam'));
  }
  if (signals.has('no-bio')) {
    out.push(badge('No bio', ''));
  }
  if (signals.has('no-avatar')) {
    out.push(badge('No avatar', ''));
  }
  if (row.attention > 0) {
    out.push(badge(`Attention ${row.attention}`, tint(row) || '', 'How many warning signals this row has'));
  }
  return h('div', { class: 'badges' }, out);
}

function signIns(row) {
  if (!row.signInCount) {
    return 'never signed in';
  }
  return joined([`signed in ${row.signInCount}×`, row.lastLoginAt && ['last ', when(row.lastLoginAt)]]);
}

function footprintText(f) {
  return joined([
    count(f.memberships, 'membership'),
    count(f.updates, 'update'),
    `${f.buzz} buzz`,
    count(f.blogPosts, 'blog post'),
    count(f.helpWantedInterest, 'help-wanted interest'),
    count(f.tags, 'tag'),
  ]).join('');
}

function emailLine(row) {
  if (!row.email) {
    return h('p', { class: 'email' }, row.emailDomain ? `Email at ${row.emailDomain}` : 'No email on file');
  }
  const at = row.email.lastIndexOf('@');
  const domain = at >= 0 ? row.email.slice(at + 1) : row.emailDomain;
  return h('p', { class: 'email' },
    at >= 0 ? row.email.slice(0, at + 1) : row.email,
    domain ? h('button', {
      type: 'button',
      class: 'linklike domain',
      title: `Search members with an address at ${domain}`,
      'aria-label': `${domain}: search members with an address at this domain`,
      onclick: () => searchDomain(domain),
    }, domain) : null);
}

function voterName(voter) {
  return voter ? voter.fullName || `@${voter.slug}` : 'someone';
}

function verdictWord(verdict) {
  return verdict === 'spam' ? 'Spam' : 'Not spam';
}

function hiddenNote(row) {
  if (!row.deletedAt) {
    return null;
  }
  let text;
  if (row.deactivatedBy === 'moderation') {
    let who = 'moderation';
    if (row.latestVote && row.latestVote.verdict === 'spam') {
      who = voterName(row.latestVote.voter);
    } else if (row.stagedVote && row.stagedVote.verdict === 'spam') {
      who = `${voterName(row.stagedVote.agent)} (agent)`;
    }
    text = `Hidden by ${who}`;
  } else if (row.deactivatedBy === 'self') {
    text = 'Deactivated by the member';
  } else if (row.deactivatedBy === 'staff') {
    text = 'Deactivated by staff';
  } else {
    text = 'Deactivated';
  }
  return h('p', { class: 'hidden-note' }, text, ' · ', when(row.deletedAt));
}

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

function voteArea(row) {
  const own = state.me !== null && row.id === state.me.id;
  const busy = state.busy.has(row.slug);
  const parts = [];
  const latest = row.latestVote;
  if (latest) {
    parts.push(h('p', { class: ['verdict', latest.verdict] },
      `${verdictWord(latest.verdict)} · by ${voterName(latest.voter)} · `, when(latest.evaluatedAt)));
    if (!state.changing.has(row.slug)) {
      parts.push(h('button', {
        type: 'button', class: 'linklike change', disabled: own || busy,
        'aria-label': `Change the vote on ${row.fullName}`,
        onclick: () => {
          state.changing.add(row.slug);
          renderRow(row);
          focusRow(row.slug, '.vote-legit');
        },
      }, 'Change'));
    }
  } else if (row.stagedVote) {
    const s = row.stagedVote;
    parts.push(h('div', { class: 'staged-vote' },
      h('p', null, h('span', { class: 'badge staged' }, 'Staged'), ' ',
        h('span', { class: ['verdict', s.verdict] }, verdictWord(s.verdict)),
        ` by ${voterName(s.agent)} (agent) · `, when(s.evaluatedAt)),
      s.reasoning ? h('p', { class: 'reasoning' }, `“${s.reasoning}”`) : null,
      s.flags && s.flags.length ? h('div', { class: 'badges' }, s.flags.map((f) => badge(f, 'staged'))) : null,
      row.purgeAfter ? h('p', { class: 'purge-after' }, 'Purged ', when(row.purgeAfter), ` (${day(row.purgeAfter)}) unless a person votes`)
        : null,
      s.counts === false ? h('p', null, 'Does not count: the agent holds no active grant.') : null));
  } else {
    parts.push(h('p', { class: 'no-vote' }, 'No vote yet'));
  }
  if (!latest || state.changing.has(row.slug)) {
    parts.push(voteButtons(row, own, busy));
  }
  if (busy) {
    parts.push(h('p', { class: 'saving' }, 'Saving…'));
  }
  if (own) {
    parts.push(h('p', { class: 'own' }, 'This is you: you cannot vote on yourself.'));
  }
  const error = state.errors.get(row.slug);
  if (error) {
    parts.push(h('p', { class: 'row-error', role: 'alert' }, error));
  }
  return h('div', { class: 'vote' }, parts);
}

function rowElement(row) {
  const expanded = state.expanded.has(row.slug);
  const id = rowId(row.slug);
  const li = h('li', {
    id,
    class: ['member', tint(row) && `tint-${tint(row)}`, row.deletedAt && 'dimmed'],
    tabindex: '-1',
    'data-slug': row.slug,
    'aria-labelledby': `${id}-name`,
  },
  h('div', { class: 'row' },
    h('div', { class: 'about' },
      h('div', { class: 'title' },
        h('h3', { class: 'name', id: `${id}-name` },
          h('a', { href: `/api/people/${encodeURIComponent(row.slug)}`, title: 'The public profile (JSON)' }, row.fullName)),
        h('span', { class: 'slug' }, `@${row.slug}`)),
      badges(row),
      h('p', { class: 'meta' }, joined([['Joined ', when(row.createdAt, `${day(row.createdAt)} (${ago(row.createdAt)})`)],
        signIns(row)])),
      emailLine(row),
      row.bioExcerpt ? h('p', { class: 'bio' }, row.bioExcerpt) : null,
      h('p', { class: 'footprint' }, footprintText(row.footprint || {})),
      hiddenNote(row)),
    voteArea(row)),
  h('button', {
    type: 'button', class: 'secondary expand', 'aria-expanded': expanded ? 'true' : 'false',
    'aria-controls': `${id}-detail`, onclick: () => toggle(row.slug),
  }, expanded ? 'Hide details' : 'Show details'),
  h('div', { class: 'detail', id: `${id}-detail`, hidden: !expanded },
    expanded ? detailContent(row.slug) : null));
  if (state.rows[state.current] && state.rows[state.current].slug === row.slug) {
    li.classList.add('current');
    li.setAttribute('aria-current', 'true');
  }
  return li;
}

function renderList() {
  list.replaceChildren(...state.rows.map(rowElement));
}

/** Redraws one row in place, keeping the keyboard focus where it was. */
function renderRow(row) {
  const old = $(rowId(row.slug));
  if (!old) {
    return;
  }
  const hadFocus = old.contains(document.activeElement);
  const focusedWasRow = document.activeElement === old;
  const fresh = rowElement(row);
  old.replaceWith(fresh);
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

function projectLink(project) {
  if (!project) {
    return 'a project';
  }
  return h('a', { href: `/api/projects/${encodeURIComponent(project.slug)}` }, project.title || project.slug);
}

function voteItem(v) {
  return h('li', null,
    h('span', { class: ['badge', v.kind === 'agent' ? 'staged' : ''] }, v.kind === 'agent' ? 'Agent' : 'Person'), ' ',
    h('span', { class: ['verdict', v.verdict] }, verdictWord(v.verdict)),
    ` by ${voterName(v.voter)} · `, when(v.evaluatedAt),
    v.flags && v.flags.length ? ` · ${v.flags.join(', ')}` : '',
    v.reasoning ? h('span', { class: 'reasoning' }, `“${v.reasoning}”`) : null);
}

function section(title, items, render, empty) {
  return h('div', null,
    h('h4', null, title),
    items && items.length ? h('ul', null, items.map(render)) : h('p', { class: 'empty' }, empty));
}

function detailContent(slug) {
  const d = state.details.get(slug);
  if (!d) {
    return h('p', { class: 'loading' }, 'Loading the details…');
  }
  const p = d.person || {};
  const f = d.footprint || {};
  return [
    h('h4', null, 'Bio'),
    p.bio && p.bio.trim() ? h('p', { class: 'full-bio' }, p.bio) : h('p', { class: 'empty' }, 'No bio.'),
    h('p', { class: 'meta' }, joined([`Account level: ${p.accountLevel}`, p.legacyId ? `Imported (legacy id ${p.legacyId})` : null,
      p.updatedAt ? ['Profile updated ', when(p.updatedAt)] : null])),
    h('div', { class: 'detail-grid' },
    section('Memberships', f.memberships, (m) => h('li', null, projectLink(m.project), m.role ? ` as ${m.role}` : '',
      ' · joined ', when(m.joinedAt)), 'No memberships.'),
    section('Updates', f.updates, (u) => h('li', null, projectLink(u.project), ` #${u.number}: `, u.title, ' · ',
      when(u.postedAt)), 'No updates.'),
    section('Buzz', f.buzz, (b) => h('li', null, projectLink(b.project), ': ', b.title, ' · ', when(b.postedAt)), 'No buzz.'),
    section('Blog posts', f.blogPosts, (b) => h('li', null,
      h('a', { href: `/api/blog-posts/${encodeURIComponent(b.slug)}` }, b.title || b.slug), ' · ', when(b.postedAt)),
    'No blog posts.'),
    section('Help-wanted interest', f.helpWantedInterest, (i) => h('li', null, projectLink(i.project),
      i.role ? `: ${i.role.title}` : '', ' · ', when(i.createdAt)), 'No help-wanted interest.'),
    section('Tags', f.tags, (t) => h('li', null, `${t.handle} (${t.type})`), 'No tags.')),
    h('div', { class: 'votes' },
      section('Votes', d.votes, voteItem, 'No votes on this account.'),
      d.earlierVotes && d.earlierVotes.length
        ? section(`Votes on an earlier account under @${slug}`, d.earlierVotes, voteItem, '') : null,
      section(`Spam purges under @${slug}`, d.earlierPurges, (x) => h('li', null, when(x.purgedAt, day(x.purgedAt)),
        ` by ${x.by}`, x.reason ? h('span', { class: 'reasoning' }, `“${x.reason}”`) : null), 'None.')),
  ];
}

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

mountKeyboard({
  state,
  list,
  rowId,
  visible: () => !$('panel-members').hidden,
  toggle,
  voteKey,
  noRow: () => say(statusRegion, 'Choose a member first: press j.'),
});

// ---------------------------------------------------------------- tabs

const tabs = [$('tab-members'), $('tab-purges')];

function selectTab(tab, { focus = false } = {}) {
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
  readUrl();
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
  readUrl();
  loadMembers({ push: false });
});

start();
