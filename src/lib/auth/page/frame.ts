// The hidden frame as pages see it (session/frames.ts asks for it): the page the engine picks opens the
// authorization request in a hidden frame and hands back what the frame's callback page posts, or why
// nothing came; and the callback page inside such a frame hands its response to the page that framed
// it, and does nothing else. One frame at a time in the whole browser, by a Web Lock.
import type { Browser } from '../browser/browser';
import { FRAME_PREFIX, type AppNames } from '../browser/storage';
import type { FrameAnswer } from '../host/messages';
import { forEngine, takeCallbackResponse } from '../protocol/callback';

/** What a frame's callback page posts: the response for the request that carried `state`. */
interface Handover {
  state: string;
  response: string;
}

const isHandover = (data: unknown, state: string): data is Handover =>
  typeof data === 'object' &&
  data !== null &&
  (data as Handover).state === state &&
  typeof (data as Handover).response === 'string';

/** Opens `url` hidden until its callback page hands over the response to `state`, a refusal shows, or `timeoutMs` passes. */
function attempt(browser: Browser, name: string, url: string, state: string, timeoutMs: number): Promise<FrameAnswer> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done({ state, failure: 'timeout' }), timeoutMs);
    const remove = browser.frame(url, name, (event) => {
      if (event.type === 'blocked') done({ state, failure: 'blocked' });
      else if (isHandover(event.data, state)) done({ state, response: event.data.response });
    });
    function done(answer: FrameAnswer) {
      clearTimeout(timer);
      remove();
      resolve(answer);
    }
  });
}

/** The engine's request for a frame, run in this page once no other page of the browser runs one. */
export async function runFrame(
  browser: Browser,
  names: AppNames,
  { url, state }: { url: string; state: string },
  timeoutMs: number,
): Promise<FrameAnswer> {
  const { locks } = browser;
  if (!locks) return attempt(browser, names.frame, url, state, timeoutMs);
  let answer: FrameAnswer = { state, failure: 'timeout' };
  await locks.request(names.frame, async () => {
    answer = await attempt(browser, names.frame, url, state, timeoutMs);
  });
  return answer;
}

/**
 * In this app's hidden frame (`names.frame`) at the redirect URI: posts the response to the page that
 * framed this one (its free text cut, as a top-level callback's). True in any app's hidden frame: this
 * page does nothing more (another instance's frame is that instance's alone); false in any other page.
 */
export function handOver(browser: Browser, names: AppNames, redirectUri: string): boolean {
  const name = browser.frameName();
  if (!name?.startsWith(FRAME_PREFIX)) return false;
  if (name !== names.frame) return true;
  const callback = takeCallbackResponse(browser, redirectUri);
  const state = callback?.params.get('state');
  if (callback && state) browser.toParent({ state, response: forEngine(callback) } satisfies Handover);
  return true;
}
