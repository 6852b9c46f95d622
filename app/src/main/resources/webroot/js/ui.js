// Small DOM helpers shared by the screens. Text always goes in as text nodes (never as HTML), so
// whatever a member wrote can only ever show as text.
import { ApiError, atLeast, signOut } from './api.js';

/**
 * Makes an element. attrs: class, text, on<Event> (a function), a boolean (present or not), or any
 * other attribute (null and undefined are left out). children: nodes, strings, numbers or arrays;
 * null, undefined and false are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (key === 'class') {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    } else if (key === 'text') {
      el.textContent = String(value);
    } else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(el, child);
    } else if (child instanceof Node) {
      el.appendChild(child);
    } else {
      el.appendChild(document.createTextNode(String(child)));
    }
  }
}

/** Joins items with a separator (text), skipping empty ones. */
export function joined(items, separator = ' · ') {
  const out = [];
  for (const item of items) {
    if (item === null || item === undefined || item === false || item === '') {
      continue;
    }
    if (out.length) {
      out.push(separator);
    }
    out.push(item);
  }
  return out;
}

const UNITS = [
  ['y', 365 * 86400],
  ['mo', 30 * 86400],
  ['d', 86400],
  ['h', 3600],
  ['min', 60],
];

/** A duration in seconds as "3 d", "2 h", "40 s". */
export function span(seconds) {
  const s = Math.max(0, Math.round(seconds));
  for (const [unit, size] of UNITS) {
    if (s >= size) {
      return `${Math.floor(s / size)} ${unit}`;
    }
  }
  return `${s} s`;
}

/** "2 h ago", "just now", "in 3 d". */
export function ago(iso, now = Date.now()) {
  if (!iso) {
    return '';
  }
  const seconds = (now - Date.parse(iso)) / 1000;
  if (Math.abs(seconds) < 45) {
    return 'just now';
  }
  return seconds > 0 ? `${span(seconds)} ago` : `in ${span(-seconds)}`;
}

/** The date part of an instant, as written in ISO (2026-09-17). */
export function day(iso) {
  return iso ? String(iso).slice(0, 10) : '';
}

/** A <time> with the instant, showing how long ago, the full instant as its title. */
export function when(iso, text) {
  if (!iso) {
    return null;
  }
  return h('time', { datetime: iso, title: new Date(iso).toLocaleString() }, text || ago(iso));
}

/** Bytes for people: 1.2 MB. */
export function bytes(n) {
  if (n === null || n === undefined) {
    return '';
  }
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = Number(n);
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${i === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[i]}`;
}

/** Plural: count(3, 'update') → "3 updates". */
export function count(n, one, many) {
  return `${n} ${n === 1 ? one : many || `${one}s`}`;
}

/** A badge: a short label, tinted by kind ('', 'amber', 'red', 'green', 'staged'). */
export function badge(text, kind, title) {
  return h('span', { class: ['badge', kind], title }, text);
}

/** Fills a pager nav: previous, "Page n of m", next; go(page) loads that page. */
export function pager(nav, page, totalPages, go) {
  nav.replaceChildren(
    h('button', { type: 'button', class: 'secondary', disabled: page <= 1, onclick: () => go(page - 1) }, 'Previous page'),
    h('span', null, `Page ${page} of ${totalPages}`),
    h('button', { type: 'button', class: 'secondary', disabled: page >= totalPages, onclick: () => go(page + 1) },
      'Next page'));
}

/** What a staff screen says when a call failed: a 401 or 404 means the session or the staff level is gone. */
export function signedOutMessage(e) {
  if (e instanceof ApiError && (e.status === 404 || e.status === 401)) {
    return 'Your session has ended, or your account is no longer staff. Sign in again to go on.';
  }
  return e instanceof ApiError ? e.describe() : 'Something went wrong.';
}

/** Writes a message into a live region (kind: '' or 'error'). */
export function say(region, message, kind = '') {
  region.textContent = message || '';
  region.classList.toggle('error', kind === 'error');
}

/** Fills the header's "who" area: the signed-in person, the staff links they may use, sign out. */
export function mountHeader(me) {
  const who = document.getElementById('who');
  const nav = document.querySelector('header.site nav');
  if (nav && me && !atLeast(me.accountLevel, 'staff')) {
    const desk = nav.querySelector('a[href="/admin/members"]');
    if (desk) {
      desk.remove();
    }
  }
  if (!who || !me) {
    return;
  }
  who.replaceChildren(
    h('span', { class: 'me' }, `Signed in as ${me.fullName} (@${me.slug}, ${me.accountLevel})`),
    h('button', { type: 'button', class: 'secondary', id: 'sign-out', onclick: () => signOut() }, 'Sign out'),
  );
}

/** Opens a confirmation dialog; resolves to the text typed (maybe '') or null when cancelled. */
export function confirmDialog(dialog) {
  const form = dialog.querySelector('form');
  const input = dialog.querySelector('input');
  const cancel = dialog.querySelector('[data-cancel]');
  if (input) {
    input.value = '';
  }
  return new Promise((resolve) => {
    const done = (value) => {
      form.removeEventListener('submit', onSubmit);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('close', onClose);
      if (dialog.open) {
        dialog.close();
      }
      resolve(value);
    };
    const onSubmit = (e) => {
      e.preventDefault();
      done(input ? input.value.trim() : '');
    };
    const onCancel = () => done(null);
    const onClose = () => done(null);
    form.addEventListener('submit', onSubmit);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('close', onClose);
    dialog.showModal();
    (input || form.querySelector('button[type="submit"]')).focus();
  });
}

/** Whether a key press happened while typing somewhere (keyboard shortcuts then stay out of the way). */
export function typing(event) {
  const t = event.target;
  if (!(t instanceof Element)) {
    return false;
  }
  return t.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], dialog') !== null;
}
