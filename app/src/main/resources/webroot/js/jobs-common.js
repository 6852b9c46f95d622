// What the jobs view's modules share: the signed-in person, who may do what, the status region, and
// how a refusal is said.
import { ApiError, atLeast } from './api.js';
import { ago } from './ui.js';

export const $ = (id) => document.getElementById(id);

/** The signed-in person, once the page has read it ({id, slug, fullName, accountLevel}). */
export const session = { me: null };

export const canChange = () => session.me !== null && atLeast(session.me.accountLevel, 'editor');
export const isAdmin = () => session.me !== null && atLeast(session.me.accountLevel, 'administrator');

export const statusRegion = () => $('jobs-status');

export const JOB = 'id fileId kind status state progress attempts maxAttempts error seq createdAt updatedAt finishedAt '
  + 'outputVersion { id downloadUrl }';

export const STATE_TEXT = {
  queued: 'Queued',
  waiting_for_worker: 'Waiting for a worker',
  claimed: 'Claimed by a worker',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function problem(e) {
  if (e instanceof ApiError && e.code === 'UNAUTHENTICATED') {
    return 'Your session has ended. Sign in again to go on.';
  }
  return e instanceof ApiError ? e.describe() : 'Something went wrong.';
}

/** A kind as the select shows it: whether a worker serves it now, served it once, or never did. */
export function kindLabel(k) {
  if (k.live) {
    return k.name;
  }
  // an <option> holds text only: the time as words ("3 hours ago"), not a <time> element
  return k.workerSeenAt ? `${k.name} (no live worker, last seen ${ago(k.workerSeenAt)})` : `${k.name} (no live worker yet)`;
}
