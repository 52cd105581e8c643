// #/notes: the demo API's notes beside apiUrl, with the test kit, as App.svelte hands the view its context.
import '@testing-library/svelte/vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from '../lib/auth';
import { createTestAuth, TEST_TOKEN } from '../lib/auth/testing';
import { CLAIMS_KEY, DRAFT_LIFE_MS } from '../lib/draft';
import { ALICE, API_ORIGIN, renderView, testConfig } from '../testing/render';
import Notes from './Notes.svelte';

/** Beside testConfig's apiUrl, the demo API's greeting. */
const NOTES_URL = `${API_ORIGIN}/api/notes`;

interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
}

/** The demo API's contract, for one user; `answer` may take over a request first. */
function demoApi(answer?: (request: Request) => Promise<Response> | undefined) {
  const notes: Note[] = [
    { id: 'n1', title: 'Welcome', body: 'Hello Alice', createdAt: '2026-01-01T00:00:00Z' },
    { id: 'n2', title: 'Shopping', body: 'Tea, jam, tarts', createdAt: '2026-01-02T00:00:00Z' },
  ];
  const requests: Request[] = [];
  async function handler(request: Request): Promise<Response> {
    requests.push(request);
    const taken = answer?.(request);
    if (taken) return taken;
    const path = new URL(request.url).pathname;
    if (path === '/api/notes' && request.method === 'GET')
      return Response.json({ items: notes.map(({ id, title }) => ({ id, title })) });
    if (path === '/api/notes' && request.method === 'POST') {
      const form = await request.formData();
      const title = form.get('title');
      if (typeof title !== 'string' || !title.trim()) {
        return Response.json({ error: 'invalid_request', error_description: 'title is required' }, { status: 400 });
      }
      const note = {
        id: `n${notes.length + 1}`,
        title,
        body: String(form.get('body') ?? ''),
        createdAt: new Date().toISOString(),
      };
      notes.push(note);
      return Response.json(note, { status: 201 });
    }
    const note = notes.find(({ id }) => path === `/api/notes/${id}`);
    return note ? Response.json(note) : Response.json({ error: 'not_found' }, { status: 404 });
  }
  return { handler, requests, gets: (url: string) => requests.filter((r) => r.method === 'GET' && r.url === url) };
}

/** What the demo API may ask a step-up for (config.json's `stepUpScopes` for it). */
const STEP_UP_SCOPES = 'notes.write';

function renderNotes(answer?: (request: Request) => Promise<Response> | undefined, stepUpScopes = STEP_UP_SCOPES) {
  const api = demoApi(answer);
  const user = { sub: 'alice', name: 'Alice' };
  const auth = createTestAuth({ user, apiOrigins: [API_ORIGIN], stepUpScopes, handler: api.handler });
  renderView(Notes, auth);
  return { auth, api };
}

/** A response the test releases when it chooses. */
function later() {
  let release!: (response: Response) => void;
  const response = new Promise<Response>((resolve) => (release = resolve));
  return { response, release };
}

/** Puts a draft where the view keeps one, as it keeps it: `record` on top of Alice's "Plan", kept now. */
function keepDraft(record: Record<string, unknown> = {}) {
  const draft = {
    id: crypto.randomUUID(),
    sub: 'alice',
    at: Date.now(),
    fields: { title: 'Plan', body: 'Tea at four' },
    ...record,
  };
  sessionStorage.setItem('notes:draft', JSON.stringify(draft));
  return draft;
}

/** The draft in storage, as the view kept it. */
const keptDraft = () => JSON.parse(sessionStorage.getItem('notes:draft')!);

/** What a Grant access keeps: the form's fields, whose they are, when, and a fresh id. */
const PLAN = { id: expect.any(String), sub: 'alice', at: expect.any(Number), fields: { title: 'Plan', body: 'Tea at four' } };

const posts = (api: { requests: Request[] }) => api.requests.filter((r) => r.method === 'POST');

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

const list = () => screen.getByRole('list');
const article = () => screen.findByRole('article', { name: 'Selected note' });

async function addNote(title: string, body: string) {
  await fireEvent.input(screen.getByLabelText('Title'), { target: { value: title } });
  await fireEvent.input(screen.getByLabelText('Text'), { target: { value: body } });
  await fireEvent.submit(screen.getByRole('button', { name: 'Add note' }).closest('form')!);
}

describe('Notes', () => {
  it('embeds nothing without apiUrl: it says there is no notes API to call, and calls nothing', () => {
    const handler = vi.fn(() => Response.json({ items: [] }));
    const auth = createTestAuth({ user: ALICE, apiOrigins: [API_ORIGIN], handler });
    renderView(Notes, auth, testConfig({ apiUrl: undefined }));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Your notes');
    expect(document.body.textContent).toContain('No apiUrl is configured');
    expect(document.querySelector('form')).toBeNull();
    expect(handler).not.toHaveBeenCalled();
  });

  it("lists the user's notes from the API's JSON at the notes beside apiUrl, fetched with the token", async () => {
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    expect(
      within(list())
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Welcome', 'Shopping']);
    const [request] = api.gets(NOTES_URL);
    expect(request.headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
  });

  it('clicking a note loads it from its own URL', async () => {
    const { api } = renderNotes();
    await fireEvent.click(await screen.findByRole('button', { name: 'Shopping' }));
    const shown = await article();
    within(shown).getByRole('heading', { name: 'Shopping' });
    expect(shown.textContent).toContain('Tea, jam, tarts');
    const [request] = api.gets(`${NOTES_URL}/n2`);
    expect(request.headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
    expect(screen.getByRole('button', { name: 'Shopping' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('a new selection aborts the load of the previous note and shows only the new one', async () => {
    const first = later();
    const second = later();
    const { api } = renderNotes((request) => {
      if (request.url.endsWith('/n1')) return first.response;
      if (request.url.endsWith('/n2')) return second.response;
    });
    await fireEvent.click(await screen.findByRole('button', { name: 'Welcome' }));
    await screen.findByText('Loading the note…');
    await fireEvent.click(screen.getByRole('button', { name: 'Shopping' }));
    const [welcome] = api.gets(`${NOTES_URL}/n1`);
    expect(welcome.signal.aborted).toBe(true);
    // The aborted answer arrives first and must not reach the screen.
    first.release(Response.json({ id: 'n1', title: 'Welcome', body: 'Hello Alice', createdAt: '' }));
    second.release(Response.json({ id: 'n2', title: 'Shopping', body: 'Tea, jam, tarts', createdAt: '' }));
    const shown = await article();
    expect(shown.textContent).toContain('Tea, jam, tarts');
    expect(shown.textContent).not.toContain('Hello Alice');
    expect(api.gets(`${NOTES_URL}/n2`)[0].signal.aborted).toBe(false);
  });

  it('the form POSTs multipart FormData and the new note joins the list without loading it again', async () => {
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Garden', 'Paint the roses red');
    await within(list()).findByRole('button', { name: 'Garden' });
    const post = api.requests.find((r) => r.method === 'POST')!;
    expect(post.url).toBe(NOTES_URL);
    expect(post.headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
    expect(post.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(api.gets(NOTES_URL)).toHaveLength(1);
    // The new note is selected and shown.
    expect((await article()).textContent).toContain('Paint the roses red');
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('');
  });

  it('a 400 answer is an alert with the service’s description, and the list stays as it was', async () => {
    renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('  ', 'no title');
    expect((await screen.findByRole('alert')).textContent).toContain('The note was not saved (HTTP 400): title is required');
    expect(within(list()).getAllByRole('button')).toHaveLength(2);
  });

  it('a failed list load is an alert whose Try again loads it again', async () => {
    let calls = 0;
    const { api } = renderNotes((request) =>
      request.method === 'GET' && request.url === NOTES_URL && ++calls === 1
        ? Promise.resolve(new Response('down', { status: 503 }))
        : undefined,
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Your notes could not be loaded (http_error, HTTP 503)');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    await screen.findByRole('button', { name: 'Welcome' });
    expect(api.gets(NOTES_URL)).toHaveLength(2);
  });

  it('signed out: "Sign in" starts a sign-in that returns here, and then the notes load', async () => {
    const api = demoApi();
    const auth = createTestAuth({ user: null, apiOrigins: [API_ORIGIN], handler: api.handler });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Notes, auth);
    expect(screen.getByText('Sign in to see your notes.')).toBeTruthy();
    expect(api.requests).toHaveLength(0);
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/notes' });
    await screen.findByRole('button', { name: 'Welcome' });
  });

  it('a failed note load is an alert whose Try again loads that note again', async () => {
    let calls = 0;
    const { api } = renderNotes((request) =>
      request.url === `${NOTES_URL}/n2` && ++calls === 1 ? Promise.resolve(new Response('down', { status: 502 })) : undefined,
    );
    await fireEvent.click(await screen.findByRole('button', { name: 'Shopping' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The note could not be loaded (http_error, HTTP 502)');
    expect(screen.queryByRole('article')).toBeNull();
    await fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect((await article()).textContent).toContain('Tea, jam, tarts');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.gets(`${NOTES_URL}/n2`)).toHaveLength(2);
  });

  it('a note saved while the list is not shown (its load failed) loads the list afresh, the new note in it', async () => {
    let calls = 0;
    const { api } = renderNotes((request) =>
      request.method === 'GET' && request.url === NOTES_URL && ++calls === 1
        ? Promise.resolve(new Response('down', { status: 503 }))
        : undefined,
    );
    await screen.findByRole('alert');
    await addNote('Garden', 'Paint the roses red');
    await within(await screen.findByRole('list')).findByRole('button', { name: 'Garden' });
    expect(within(list()).getAllByRole('button')).toHaveLength(3);
    expect(api.gets(NOTES_URL)).toHaveLength(2);
    expect((await article()).textContent).toContain('Paint the roses red');
  });

  it('an error answer that is not JSON is an alert with its status alone', async () => {
    renderNotes((request) =>
      request.method === 'POST' ? Promise.resolve(new Response('<h1>Oops</h1>', { status: 500 })) : undefined,
    );
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('The note was not saved (HTTP 500)');
    expect(within(list()).getAllByRole('button')).toHaveLength(2);
  });

  it('a save whose answer comes after sign-out shows nothing of it, then or once signed in again', async () => {
    const post = later();
    const { auth, api } = renderNotes((request) => (request.method === 'POST' ? post.response : undefined));
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    await vi.waitFor(() => expect(posts(api)).toHaveLength(1));
    auth.signOut();
    post.release(Response.json({ error: 'server_error', error_description: 'late' }, { status: 500 }));
    await screen.findByRole('button', { name: 'Sign in' });
    await tick();
    expect(screen.queryByRole('alert')).toBeNull();
    // Nor once someone signs in again: the failed save was the last session's.
    await auth.signIn();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.body.textContent).not.toContain('not saved');
  });

  it('signing out clears the list and the note: nothing of the user is shown', async () => {
    const { auth } = renderNotes();
    await fireEvent.click(await screen.findByRole('button', { name: 'Shopping' }));
    await article();
    auth.signOut();
    await tick();
    expect(screen.queryByText('Welcome')).toBeNull();
    expect(screen.queryByText('Shopping')).toBeNull();
    expect(screen.queryByText('Tea, jam, tarts')).toBeNull();
    screen.getByRole('button', { name: 'Sign in' });
    // Signing in again starts with nothing selected.
    await auth.signIn();
    expect((await screen.findByRole('button', { name: 'Shopping' })).getAttribute('aria-pressed')).toBe('false');
    expect(screen.queryByRole('article')).toBeNull();
  });
});

/** The demo API's answer to a POST when the token lacks notes.write. */
const insufficientScope = (request: Request) =>
  request.method === 'POST'
    ? Promise.resolve(
        new Response(null, {
          status: 403,
          headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="notes.write"' },
        }),
      )
    : undefined;

describe('a write the sign-in does not allow (RFC 6750 §3.1)', () => {
  it('names the missing permission; Grant access keeps the draft and asks for it, returning here', async () => {
    const { auth } = renderNotes(insufficientScope);
    const signIn = vi.spyOn(auth, 'signIn');
    await screen.findByRole('button', { name: 'Welcome' });
    await fireEvent.input(screen.getByLabelText('Title'), { target: { value: 'Plan' } });
    await fireEvent.input(screen.getByLabelText('Text'), { target: { value: 'Tea at four' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add note' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('notes.write');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Grant access' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ scope: 'notes.write', returnTo: '/notes' });
    expect(keptDraft()).toEqual(PLAN);
    expect(JSON.stringify(sessionStorage)).not.toContain(TEST_TOKEN);
  });

  it('back with the permission, the draft is saved once, by itself, and leaves storage', async () => {
    keepDraft();
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Plan' });
    const posts = api.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    expect((screen.getByLabelText('Title') as HTMLInputElement).value).toBe('');
  });

  it('refused again after the grant: an error with the draft still in the form, and no redirect on its own', async () => {
    keepDraft();
    const { auth, api } = renderNotes(insufficientScope);
    const signIn = vi.spyOn(auth, 'signIn');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('notes.write');
    await tick();
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(signIn).not.toHaveBeenCalled();
    expect((screen.getByLabelText('Title') as HTMLInputElement).value).toBe('Plan');
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
  });

  it("another person's draft (an account switch at the identity service) is dropped, never saved", async () => {
    keepDraft({ sub: 'bob' });
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    expect((screen.getByLabelText('Title') as HTMLInputElement).value).toBe('');
  });

  it('a draft that is not one (hand-edited storage) is dropped, never saved', async () => {
    keepDraft({ fields: { title: 1 } });
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
  });
});

describe('a write whose per-API token needs consent first', () => {
  it('interaction_required: names the scope and Grant access asks for it, keeping the draft', async () => {
    const { auth, api } = renderNotes((request) =>
      request.method === 'POST' ? Promise.reject(new AuthError('interaction_required', { scope: 'notes.write' })) : undefined,
    );
    const signIn = vi.spyOn(auth, 'signIn');
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('notes.write');
    expect(signIn).not.toHaveBeenCalled();
    await fireEvent.click(within(alert).getByRole('button', { name: 'Grant access' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ scope: 'notes.write', returnTo: '/notes' });
    expect(keptDraft()).toEqual(PLAN);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('interaction_required without a scope: asks for consent, with a sign-in for nothing more', async () => {
    const { auth } = renderNotes((request) =>
      request.method === 'POST' ? Promise.reject(new AuthError('interaction_required')) : undefined,
    );
    const signIn = vi.spyOn(auth, 'signIn');
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('consent for this API');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Grant access' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/notes' });
  });
});

describe('what no sign-in mends, and a write that wants a recent sign-in (RFC 9470)', () => {
  it('a scope beyond what the API may ask for is an error, with no Grant access and no sign-in', async () => {
    const { auth } = renderNotes((request) =>
      request.method === 'POST'
        ? Promise.resolve(
            new Response(null, {
              status: 403,
              headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="notes.write notes.admin"' },
            }),
          )
        : undefined,
    );
    const signIn = vi.spyOn(auth, 'signIn');
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The note was not saved (scope_not_allowed, HTTP 403)');
    expect(alert.textContent).not.toContain('notes.admin');
    expect(screen.queryByRole('button', { name: 'Grant access' })).toBeNull();
    expect(signIn).not.toHaveBeenCalled();
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
  });

  it('a long list the API may ask for is shown whole, never cut', async () => {
    const scope = Array.from({ length: 30 }, (_, i) => `notes.scope${i}`).join(' ');
    renderNotes(
      (request) =>
        request.method === 'POST'
          ? Promise.resolve(
              new Response(null, {
                status: 403,
                headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
              }),
            )
          : undefined,
      scope,
    );
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const shown = (await screen.findByRole('alert')).querySelector('[data-scope]')!;
    expect(scope.length).toBeGreaterThan(200);
    expect(shown.textContent).toBe(scope);
  });

  it('insufficient_scope without a scope to ask for is an error, with no Grant access', async () => {
    renderNotes((request) =>
      request.method === 'POST'
        ? Promise.resolve(
            new Response(null, { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' } }),
          )
        : undefined,
    );
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    expect((await screen.findByRole('alert')).textContent).toContain('The note was not saved (insufficient_scope, HTTP 403)');
    expect(screen.queryByRole('button', { name: 'Grant access' })).toBeNull();
  });

  it('insufficient_user_authentication: Sign in again asks for a sign-in within max_age, keeping the draft', async () => {
    const { auth } = renderNotes((request) =>
      request.method === 'POST'
        ? Promise.resolve(
            new Response(null, {
              status: 401,
              headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication", max_age=60' },
            }),
          )
        : undefined,
    );
    const signIn = vi.spyOn(auth, 'signIn');
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Saving needs a more recent sign-in');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Sign in again' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ max_age: 60, returnTo: '/notes' });
    expect(keptDraft()).toEqual(PLAN);
  });
});

describe('a draft ends with its session', () => {
  it('signing out (here, or in another tab: the session goes to signed-out) drops it; signed in again, nothing is saved', async () => {
    const { auth, api } = renderNotes(insufficientScope);
    vi.spyOn(auth, 'signIn').mockResolvedValueOnce(undefined);
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    await fireEvent.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Grant access' }));
    expect(keptDraft()).toEqual(PLAN);
    auth.signOut();
    await tick();
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    await auth.signIn();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(posts(api)).toHaveLength(1);
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('');
  });

  it('a view shown signed out drops the draft its tab kept', async () => {
    keepDraft();
    const api = demoApi();
    const auth = createTestAuth({ user: null, apiOrigins: [API_ORIGIN], handler: api.handler });
    renderView(Notes, auth);
    await tick();
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    await auth.signIn();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(posts(api)).toHaveLength(0);
  });

  it.each([
    ['an hour old', -DRAFT_LIFE_MS],
    ['kept later than now (the clock was set back)', 60_000],
  ])('a draft %s is dropped, never saved', async (_name, age) => {
    keepDraft({ at: Date.now() + age });
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(posts(api)).toHaveLength(0);
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('');
  });

  it('a draft within its hour is saved, and its id is claimed until the hour ends: nothing else is stored', async () => {
    const { id, at } = keepDraft({ at: Date.now() - DRAFT_LIFE_MS + 60_000 });
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Plan' });
    expect(posts(api)).toHaveLength(1);
    expect(JSON.parse(localStorage.getItem(CLAIMS_KEY)!)).toEqual({ [id]: at + DRAFT_LIFE_MS });
    const stored = JSON.stringify({ ...sessionStorage, ...localStorage });
    expect(stored).not.toContain('Tea at four');
    expect(stored).not.toContain(TEST_TOKEN);
  });

  it('a duplicated tab (sessionStorage is copied) finds the id claimed and drops its copy, never saving it twice', async () => {
    const { id } = keepDraft();
    // The tab it was copied from has saved it already.
    localStorage.setItem(CLAIMS_KEY, JSON.stringify({ [id]: Date.now() + DRAFT_LIFE_MS }));
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(posts(api)).toHaveLength(0);
    expect(sessionStorage.getItem('notes:draft')).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('');
  });
});

describe('what the person is typing', () => {
  const typed = () => JSON.parse(sessionStorage.getItem('notes:typing') ?? 'null');
  const typeNote = async () => {
    await fireEvent.input(screen.getByLabelText('Title'), { target: { value: 'Plan' } });
    await fireEvent.input(screen.getByLabelText('Text'), { target: { value: 'Tea at four' } });
  };

  it('is kept as it is typed, and is back in the form, unsent, when the page comes back (Stay signed in)', async () => {
    renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await typeNote();
    expect(typed()).toEqual(PLAN);
    // The page leaves for the identity service and comes back: a new view of the same tab.
    cleanup();
    const { api } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('Plan');
    expect(screen.getByLabelText<HTMLTextAreaElement>('Text').value).toBe('Tea at four');
    expect(posts(api)).toHaveLength(0);
    // Kept again, for the next trip.
    expect(typed()).toEqual(PLAN);
  });

  it('leaves storage once the note is saved, and when the session is signed out', async () => {
    const { auth } = renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await addNote('Plan', 'Tea at four');
    await screen.findByRole('button', { name: 'Plan' });
    expect(typed()).toBeNull();
    await typeNote();
    expect(typed()).toEqual(PLAN);
    auth.signOut();
    await tick();
    expect(typed()).toBeNull();
  });

  it("another person's (an account switch at the identity service) is dropped, never shown", async () => {
    sessionStorage.setItem(
      'notes:typing',
      JSON.stringify({ id: crypto.randomUUID(), sub: 'bob', at: Date.now(), fields: { title: 'Bob', body: 'secret' } }),
    );
    renderNotes();
    await screen.findByRole('button', { name: 'Welcome' });
    await tick();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('');
    expect(typed()).toBeNull();
  });
});
