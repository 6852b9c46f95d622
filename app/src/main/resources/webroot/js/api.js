// The JSON API and GraphQL, called as the signed-in browser (the HttpOnly session cookie).
// Every change is a non-GET with Content-Type application/json: the site's CSRF rule.

/** A refusal from the server (or no answer at all: status 0, code "network"). */
export class ApiError extends Error {
  constructor(status, code, message, fields) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields || null;
    this.retryAfter = null;
  }

  /** The message with the field problems, for people. */
  describe() {
    if (!this.fields) {
      return this.message;
    }
    const parts = Object.entries(this.fields).map(([name, reason]) => `${name} ${reason}`);
    return `${this.message}: ${parts.join('; ')}`;
  }
}

function queryString(query) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') {
      params.set(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function send(url, init) {
  try {
    return await fetch(url, { credentials: 'same-origin', ...init });
  } catch (e) {
    throw new ApiError(0, 'network', 'The server could not be reached. Check the connection and try again.');
  }
}

async function readJson(res) {
  try {
    return await res.json();
  } catch (e) {
    return null;
  }
}

/**
 * Calls a JSON route; resolves to the whole envelope ({data, metadata}) or throws an ApiError.
 * options: method (GET), query (an object; empty values are left out), body (sent as JSON).
 */
export async function api(path, { method = 'GET', query, body } = {}) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (method !== 'GET' && method !== 'HEAD') {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const res = await send(path + queryString(query), init);
  const json = await readJson(res);
  if (!res.ok || !json || json.success !== true) {
    const error = json && json.error;
    const wait = res.headers.get('Retry-After');
    const refusal = res.status === 429
      ? new ApiError(429, 'rate_limited', `Too many changes at once. Try again in ${wait || 'a few'} seconds.`)
      : new ApiError(res.status, (error && error.code) || `http_${res.status}`,
        (error && error.message) || `The server answered ${res.status}.`, error && error.fields);
    // whole seconds to wait before trying again (a 429 or 503 says), or null
    refusal.retryAfter = wait && /^\d+$/.test(wait) ? Number(wait) : null;
    throw refusal;
  }
  return json;
}

/** Runs a GraphQL query or mutation over HTTP; resolves to its data or throws the first error. */
export async function gql(query, variables = {}) {
  const res = await send('/graphql', {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const json = await readJson(res);
  if (!json) {
    throw new ApiError(res.status, `http_${res.status}`, `The server answered ${res.status}.`);
  }
  if (json.errors && json.errors.length) {
    const first = json.errors[0];
    const ext = first.extensions || {};
    throw new ApiError(res.status, ext.code || 'GRAPHQL', first.message, ext.fields);
  }
  return json.data;
}

/** The signed-in person ({id, slug, fullName, accountLevel, email, ...}), or null when nobody is. */
export async function currentPerson() {
  try {
    return (await api('/api/auth/me')).data;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      return null;
    }
    throw e;
  }
}

/** Ends the session and goes to the sign-in page. */
export async function signOut() {
  try {
    await api('/api/auth/logout', { method: 'POST' });
  } finally {
    window.location.assign('/login');
  }
}

const LEVELS = ['user', 'editor', 'staff', 'administrator'];

/** Whether an account level is at least another one. */
export function atLeast(level, wanted) {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(wanted);
}
