import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
const t0 = Date.now();
const log = (...a) => console.log(Date.now() - t0, ...a);
const server = createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/') { res.writeHead(200, {'content-type':'text/html'}); res.end(`<script type=module>window.w = new SharedWorker('/w.js', {type:'module', name:'n'}); w.port.onmessage = e => document.title = e.data;</script>`); return; }
  if (u.pathname === '/w.js') { res.writeHead(200, {'content-type':'text/javascript'}); res.end(`let port; onconnect = e => { port = e.ports[0]; if (t) port.postMessage(t) }; let t; console.log('worker up', typeof Worker); const r = await fetch('/api', {method:'POST', headers:{Authorization:'Bearer x', DPoP:'p'}, body:'a=1'}); t = await r.text(); console.log('got', t); if (typeof Worker === 'function') { const d = new Worker('/d.js', {type: 'module'}); d.onmessage = e => { t += ' ' + e.data; port?.postMessage(t) } } else port?.postMessage(t); fetch('http://127.0.0.1:1/nope').catch(e => console.warn('failed', e.message));`); return; }
  if (u.pathname === '/d.js') { res.writeHead(200, {'content-type':'text/javascript'}); res.end(`console.log('dedicated up'); const r = await fetch('/api?d', {method:'POST', body:'d=1'}); postMessage(await r.text());`); return; }
  if (u.pathname.startsWith('/api')) { log('SERVER', req.url); let b=''; req.on('data', d=>b+=d); req.on('end', ()=>{ res.writeHead(201, {'content-type':'text/plain'}); res.end('hello '+b); }); return; }
  res.writeHead(404); res.end();
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const url = `http://localhost:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium-headless-shell', args: ['--headless','--no-sandbox'] });
const cdp = await browser.newBrowserCDPSession();
let id = 0;
const calls = new Map();
const sessions = new Map();
function makeSend(sessionId) {
  return (method, params = {}) => new Promise((resolve, reject) => { const i = ++id; calls.set(i, {resolve, reject, method}); cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: i, method, params }) }).catch(reject); });
}
cdp.on('event', async ({method, params}) => {
  if (method === 'Target.receivedMessageFromTarget') {
    const m = JSON.parse(params.message);
    if (m.id) { const c = calls.get(m.id); calls.delete(m.id); if (m.error) { log('CALLERR', c.method, m.error.message); c.reject(new Error(m.error.message)); } else c.resolve(m.result); return; }
    log('MSG', params.sessionId.slice(0,6), params.message.slice(0, 300));
    if (m.method === 'Network.loadingFinished' || m.method === 'Network.loadingFailed') {
      const send = sessions.get(params.sessionId);
      send('Network.getResponseBody', { requestId: m.params.requestId }).then(b => log('BODY', m.params.requestId, JSON.stringify(b)), () => {});
    }
    return;
  }
  log('EV', method, JSON.stringify(params).slice(0, 300));
  if (method === 'Target.attachedToTarget' && params.waitingForDebugger) {
    const { sessionId, targetInfo } = params;
    try {
      const r = await cdp.send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: false });
      const send = makeSend(r.sessionId); sessions.set(r.sessionId, send);
      await send('Network.enable'); await send('Runtime.enable'); await send('Log.enable');
      await send('Fetch.enable', { patterns: [{ urlPattern: '*nothing*', requestStage: 'Response' }] }).then(() => log('fetch ok'), () => {});
      await send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false }).then(() => log('nested autoattach ok'), () => {});
      await cdp.send('Target.detachFromTarget', { sessionId });
      log('released', targetInfo.type);
    } catch (e) { log('ERR', e.message); }
  }
});
await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{type:'shared_worker'}, {type: 'worker'}] });
const context = await browser.newContext();
context.on('request', r => log('PW request', r.url()));
context.on('console', m => log('PW console', m.text()));
const page = await context.newPage();
await page.goto(url);
await page.waitForFunction(() => document.title.includes(' '), null, {timeout: 5000}).catch(e => log('timeout'));
log('title', await page.title());
await new Promise(r => setTimeout(r, 500));
await context.close();
log('context closed');
await browser.close(); server.close();
