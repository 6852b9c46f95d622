// The sign-in page: a password form (POST /api/auth/login as JSON) and, when the site offers it,
// GitHub sign-in. Both end at the page named by ?return=, but only a path on this site.
import { api, ApiError, currentPerson, signOut } from './api.js';
import { h, say } from './ui.js';

const DEFAULT_RETURN = '/admin/jobs';

/** The same rule as the server's: one leading slash, no backslash, whitespace, control or non-ASCII. */
export function safeReturnPath(raw) {
  if (!raw || raw.length > 2048 || raw[0] !== '/' || raw[1] === '/' || raw[1] === '\\') {
    return DEFAULT_RETURN;
  }
  for (const ch of raw) {
    const c = ch.codePointAt(0);
    if (c <= 0x20 || c >= 0x7f || ch === '\\') {
      return DEFAULT_RETURN;
    }
  }
  return raw;
}

const GITHUB_ERRORS = {
  state_mismatch: 'The GitHub sign-in expired or was started in another browser. Please try again.',
  github_failed: 'GitHub did not confirm the sign-in. Please try again.',
  account_blocked: 'This GitHub account may not sign in here.',
  account_unavailable: 'This GitHub account cannot be used to sign in.',
  rate_limited: 'Too many sign-in attempts. Please wait a minute and try again.',
  internal_error: 'Something went wrong on our side. Please try again.',
};

const params = new URLSearchParams(window.location.search);
const returnPath = safeReturnPath(params.get('return'));
const status = document.getElementById('signin-status');
const form = document.getElementById('signin-form');
const submit = document.getElementById('signin-submit');
const loginInput = document.getElementById('login');
const passwordInput = document.getElementById('password');

if (params.get('error')) {
  say(status, GITHUB_ERRORS[params.get('error')] || 'The sign-in did not work. Please try again.', 'error');
}

if (document.body.dataset.github === 'true') {
  const link = document.getElementById('github-signin');
  link.href = `/api/auth/github/start?return=${encodeURIComponent(returnPath)}`;
  document.getElementById('github-area').hidden = false;
}

// the button stays disabled until this script runs, so a password never leaves in a plain form post
submit.disabled = false;

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const login = loginInput.value.trim();
  const password = passwordInput.value;
  if (!login || !password) {
    say(status, 'Enter your username (or email) and your password.', 'error');
    (login ? passwordInput : loginInput).focus();
    return;
  }
  submit.disabled = true;
  say(status, 'Signing in…');
  try {
    await api('/api/auth/login', { method: 'POST', body: { login, password } });
    say(status, 'Signed in.');
    window.location.assign(returnPath);
  } catch (e) {
    submit.disabled = false;
    let message = e instanceof ApiError ? e.describe() : 'The sign-in did not work.';
    if (e instanceof ApiError && e.code === 'invalid_credentials') {
      message = 'The username or the password is wrong.';
    } else if (e instanceof ApiError && e.code === 'SETUP_REQUIRED') {
      message = 'This site is not set up yet: an administrator must finish the first-run setup.';
    }
    say(status, message, 'error');
    passwordInput.select();
    passwordInput.focus();
  }
});

// Already signed in: say so, and offer to go on or to sign out (never a redirect loop).
currentPerson().then((me) => {
  if (!me) {
    return;
  }
  const note = document.getElementById('signed-in');
  note.replaceChildren(
    `You are signed in as ${me.fullName} (@${me.slug}). `,
    h('a', { href: returnPath }, 'Continue'),
    ' or ',
    h('button', { type: 'button', class: 'linklike', onclick: () => signOut() }, 'sign out'),
    '.',
  );
  note.hidden = false;
}).catch(() => {
  // the form still works; the note is only a courtesy
});
