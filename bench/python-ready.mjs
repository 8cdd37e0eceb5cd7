// W6 (issue 30): time from the reader's click on "Python" to a ready
// interpreter in the playground — Pyodide fetched from the site, compiled in
// the sandbox frame, booted with the torch shim in the sandbox's worker —
// uncached (a fresh browser context) and cached (the same context again:
// the HTTP cache revalidates with 304s, as on a reader's second visit).
// "Ready" is the moment the progress line disappears (the worker said ready).

/** {coldMs, warmMs} for the playground at `url` (a browser from playwright-core). */
export async function measurePythonReady(browser, url, { log = () => {} } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const once = async () => {
    const page = await ctx.newPage();
    await page.goto(`${url}playground.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('#graph .bnode'), null, { timeout: 20000 });
    await page.waitForTimeout(300);
    const t0 = Date.now();
    await page.click('input[name=lang][value=python]');
    await page.waitForFunction(() => {
      const s = document.getElementById('py-status');
      return s && s.hidden && /ran in/.test(document.getElementById('program-status').textContent);
    }, null, { timeout: 120000, polling: 50 });
    const ms = Date.now() - t0;
    await page.close();
    return ms;
  };
  try {
    const coldMs = await once();
    const warmMs = await once();
    log(`W6 Python ready: ${coldMs} ms uncached, ${warmMs} ms cached`);
    return { coldMs, warmMs };
  } finally { await ctx.close(); }
}
