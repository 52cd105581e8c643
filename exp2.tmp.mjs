import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
const t0 = Date.now();
const log = (...a) => console.log(Date.now() - t0, ...a);
const server = createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/') { res.writeHead(200, {'content-type':'text/html'}); res.end(`<script type=module>window.w = new SharedWorker('/w.js', {type:'module', name:'n'}); w.port.onmessage = e => document.title = e.data;</script>`); return; }
  if (u.pathname === '/w.js') { res.writeHead(200, {'content-type':'text/javascript'}); res.end(`let port; onconnect = e => { port = e.ports[0]; if (t) port.postMessage(t) }; let t; console.log('worker up', {a:1}); const r = await fetch('/api', {method:'POST', headers:{Authorization:'Bearer x', DPoP:'p'}, body:'a=1'}); t = await r.text(); console.log('got', t); port?.postMessage(t);`); return; }
  if (u.pathname === '/api') { log('SERVER /api'); let b=''; req.on('data', d=>b+=d); req.on('end', ()=>{ res.writeHead(201, {'content-type':'text/plain'}); res.end('hello '+b); }); return; }
  res.writeHead(404); res.end();
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const url = `http://localhost:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium-headless-shell', args: ['--headless','--no-sandbox'] });
const cdp = await browser.newBrowserCDPSession();
let id = 0;
cdp.on('event', async ({method, params}) => {
  if (method === 'Target.receivedMessageFromTarget') { log('MSG', params.sessionId.slice(0,6), params.message.slice(0, 400)); return; }
  log('EV', method, JSON.stringify(params).slice(0, 400));
  if (method === 'Target.attachedToTarget' && params.waitingForDebugger) {
    const { sessionId, targetInfo } = params;
    try {
      const r = await cdp.send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: false });
      log('attached nonflat', r);
      const send = (method, params = {}) => cdp.send('Target.sendMessageToTarget', { sessionId: r.sessionId, message: JSON.stringify({ id: ++id, method, params }) });
      await send('Network.enable'); await send('Runtime.enable'); await send('Log.enable');
      await send('Runtime.runIfWaitingForDebugger');
      log('detach flat');
      await cdp.send('Target.detachFromTarget', { sessionId });
    } catch (e) { log('ERR', e.message); }
  }
});
console.log(await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{type:'shared_worker'}] }));
const context = await browser.newContext();
context.on('request', r => log('PW request', r.url()));
context.on('console', m => log('PW console', m.text()));
const page = await context.newPage();
await page.goto(url);
await page.waitForFunction(() => document.title, null, {timeout: 5000}).catch(e => log('timeout'));
log('title', await page.title());
await browser.close(); server.close();
