// The purge log of the members desk: GET /api/admin/spam-purges with its filters and pages, and
// lifting a sign-in block through POST /api/admin/spam-purges/:id/unblock.
import { api } from './api.js';
import { ago, badge, confirmDialog, count, day, h, pager, say, signedOutMessage, when } from './ui.js';

const PER_PAGE = 50;

const log = {
  loaded: false,
  page: 1,
};

const $ = (id) => document.getElementById(id);
const purgeList = $('purges');
const purgeStatus = $('purges-status');

function purgeQuery() {
  return {
    by: $('p-by').value,
    slug: $('p-slug').value.trim().toLowerCase(),
    since: $('p-since').value,
    blocking: $('p-blocking').value,
    page: log.page,
    perPage: PER_PAGE,
  };
}

function byText(p) {
  const ref = p.byRef;
  if (!ref || ref.kind === 'scheduled') {
    return 'the scheduled purge';
  }
  const name = ref.fullName || `@${ref.slug}`;
  return `${name} (${ref.kind === 'agent' ? 'agent' : 'person'})`;
}

function purgeItem(p) {
  let block;
  if (!p.blocksSignIn) {
    block = h('p', null, 'No sign-in block.');
  } else if (p.unblockedAt) {
    block = h('p', null, `Sign-in block lifted by @${p.unblockedBySlug} · `, when(p.unblockedAt));
  } else {
    block = h('p', null, h('span', { class: 'badge red' }, 'Sign-in blocked'), ' ',
      h('button', {
        type: 'button', class: 'secondary unblock', 'aria-label': `Unblock @${p.slug}`,
        onclick: () => unblock(p),
      }, 'Unblock'));
  }
  return h('li', { class: 'purge', 'data-id': p.id },
    h('div', { class: 'title' }, h('h3', null, `@${p.slug}`), h('span', null, p.fullName || '')),
    h('p', { class: 'meta' }, 'Purged ', when(p.purgedAt, `${day(p.purgedAt)} (${ago(p.purgedAt)})`), ` by ${byText(p)}`,
      p.githubLogin ? ` · GitHub @${p.githubLogin}` : ''),
    p.reason ? h('p', null, `“${p.reason}”`) : null,
    p.flags && p.flags.length ? h('div', { class: 'badges' }, p.flags.map((f) => badge(f, ''))) : null,
    p.evidence && p.evidence.length ? h('ul', null, p.evidence.map((e) => {
      const label = `${e.path}${e.field ? `#${e.field}` : ''}`;
      return h('li', null, 'Evidence: ', e.url ? h('a', { href: e.url, rel: 'noreferrer' }, label) : label);
    })) : null,
    block,
    p.commitUrl ? h('p', null, h('a', { href: p.commitUrl, rel: 'noreferrer' }, 'History of this record')) : null);
}

async function loadPurges() {
  say(purgeStatus, 'Loading the purge log…');
  try {
    const answer = await api('/api/admin/spam-purges', { query: purgeQuery() });
    const meta = answer.metadata;
    log.loaded = true;
    log.page = meta.page;
    purgeList.replaceChildren(...answer.data.map(purgeItem));
    pager($('purges-pager'), meta.page, meta.totalPages, (page) => {
      log.page = page;
      loadPurges();
    });
    say(purgeStatus, answer.data.length ? `${count(meta.totalItems, 'purge')}. Page ${meta.page} of ${meta.totalPages}.`
      : 'No purge matches these filters.');
  } catch (e) {
    say(purgeStatus, signedOutMessage(e), 'error');
  }
}

async function unblock(purge) {
  $('unblock-name').textContent = `@${purge.slug}`;
  const reason = await confirmDialog($('unblock-dialog'));
  if (reason === null) {
    say(purgeStatus, 'Nothing changed.');
    return;
  }
  try {
    await api(`/api/admin/spam-purges/${encodeURIComponent(purge.id)}/unblock`, {
      method: 'POST', body: reason ? { reason } : {},
    });
    await loadPurges();
    say(purgeStatus, `@${purge.slug} may sign in again.`);
  } catch (e) {
    say(purgeStatus, `The block was not lifted: ${signedOutMessage(e)}`, 'error');
    await loadPurges();
  }
}

/** Loads the log the first time it is shown; later showings keep what it shows. */
export function showPurgeLog() {
  if (!log.loaded) {
    loadPurges();
  }
}

/** A new search from the first page whenever the filters change. */
export function mountPurgeLog() {
  $('purge-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    log.page = 1;
    loadPurges();
  });
  for (const id of ['p-by', 'p-since', 'p-blocking']) {
    $(id).addEventListener('change', () => {
      log.page = 1;
      loadPurges();
    });
  }
}
