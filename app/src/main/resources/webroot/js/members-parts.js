// The parts of a members-desk row that the cards and the table both show: the tint, the badges
// and their short form, sign-ins, the footprint, who voted, the hidden note, and the detail.
// Everything is drawn from what the server answered.
import { ago, badge, count, day, h, joined, span, when } from './ui.js';

/** The detail's lists become the roster row's counts. */
export function rowFromDetail(detail) {
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

export function tint(row) {
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

export function badges(row) {
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

export function signIns(row) {
  if (!row.signInCount) {
    return 'never signed in';
  }
  return joined([`signed in ${row.signInCount}×`, row.lastLoginAt && ['last ', when(row.lastLoginAt)]]);
}

export function footprintText(f) {
  return joined([
    count(f.memberships, 'membership'),
    count(f.updates, 'update'),
    `${f.buzz} buzz`,
    count(f.blogPosts, 'blog post'),
    count(f.helpWantedInterest, 'help-wanted interest'),
    count(f.tags, 'tag'),
  ]).join('');
}

export function voterName(voter) {
  return voter ? voter.fullName || `@${voter.slug}` : 'someone';
}

export function verdictWord(verdict) {
  return verdict === 'spam' ? 'Spam' : 'Not spam';
}

export function hiddenNote(row) {
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

/** The detail of GET /api/admin/members/:slug (d), or a loading line while it is not there yet. */
export function detailContent(slug, d) {
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

// the signals in a few words each, for the table's one line (the cards show them as badges)
const SHORT = {
  'github-new-account': 'GitHub new',
  'github-no-activity': 'GitHub idle',
  'email-name-mismatch': 'email ≠ name',
  'slug-purged-before': 'slug purged before',
  'no-bio': 'no bio',
  'no-avatar': 'no avatar',
};

/** The signals and warnings of a row in short form: ["GitHub gone", "bounced", "2 links", ...]. */
export function shortSignals(row) {
  const out = [];
  if (row.github && row.github.status === 'gone') {
    out.push('GitHub gone');
  }
  if (row.emailBounce) {
    out.push('bounced');
  }
  for (const s of row.signals || []) {
    if (s.startsWith('bio-links:')) {
      out.push(count(Number(s.slice('bio-links:'.length)), 'link'));
    } else if (SHORT[s]) {
      out.push(SHORT[s]);
    }
  }
  if (row.origin === 'imported') {
    out.push('imported');
  }
  return out;
}
