// The members desk's cards: one member a card with every badge, the email, the bio excerpt, the
// footprint and the vote area; "Show details" opens the detail under it. The table
// (members-table.js) shows the same rows one line each.
import { badges, detailContent, footprintText, hiddenNote, signIns, tint, verdictWord, voterName } from './members-parts.js';
import { ago, badge, day, h, joined, when } from './ui.js';

function emailLine(desk, row) {
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
      onclick: () => desk.searchDomain(domain),
    }, domain) : null);
}

function voteArea(desk, row) {
  const { state } = desk;
  const own = state.me !== null && row.id === state.me.id;
  const busy = state.busy.has(row.slug);
  const parts = [];
  const latest = row.latestVote;
  if (latest) {
    parts.push(h('p', { class: ['verdict', latest.verdict] },
      `${verdictWord(latest.verdict)} · by ${voterName(latest.voter)} · `, when(latest.evaluatedAt)));
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
  parts.push(desk.voteControls(row));
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

/** One member as a card (an <li> of the roster list). */
export function cardMember(desk, row) {
  const { state } = desk;
  const expanded = state.expanded.has(row.slug);
  const id = desk.rowId(row.slug);
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
      emailLine(desk, row),
      row.bioExcerpt ? h('p', { class: 'bio' }, row.bioExcerpt) : null,
      h('p', { class: 'footprint' }, footprintText(row.footprint || {})),
      hiddenNote(row)),
    voteArea(desk, row)),
  h('button', {
    type: 'button', class: 'secondary expand', 'aria-expanded': expanded ? 'true' : 'false',
    'aria-controls': `${id}-detail`, onclick: () => desk.toggle(row.slug),
  }, expanded ? 'Hide details' : 'Show details'),
  h('div', { class: 'detail', id: `${id}-detail`, hidden: !expanded },
    expanded ? detailContent(row.slug, state.details.get(row.slug)) : null));
  if (state.rows[state.current] && state.rows[state.current].slug === row.slug) {
    li.classList.add('current');
    li.setAttribute('aria-current', 'true');
  }
  return li;
}
