// A fake of the Gemini API (generativelanguage.googleapis.com) that plays a script of model
// turns, for running the real Gemini CLI here without a network or a key. Not shipped, not run
// by CI: see README.md beside it.
import http from 'node:http';

/**
 * Starts the fake. `script` is a list of turns; each is `{ parts, before?, usage? }`: the parts
 * the model answers with (text, functionCall; several functionCalls = one parallel batch),
 * `before()` run just before the answer is sent (the "user" changing a file between turns), and
 * `usage`, the usageMetadata to report (a large promptTokenCount makes the CLI compress).
 * Only the agent loop's requests (those that declare tools) take a turn; the CLI's side
 * requests (routing, summaries, loop checks) get a fixed short answer, so the script stays in step.
 */
export function startFakeApi(script, { log = () => {} } = {}) {
  let next = 0;
  let lastRequestAt = 0;
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      let json = {};
      try {
        json = body ? JSON.parse(body) : {};
      } catch {
        // a body that is not JSON is logged as it is
      }
      const url = new URL(req.url, 'http://x');
      const method = url.pathname.split(':').pop();
      const main = Array.isArray(json.tools) && json.tools.length > 0 && !json.generationConfig?.responseJsonSchema;
      requests.push({ method, path: url.pathname, main, contents: json.contents?.length });
      lastRequestAt = Date.now();
      log(`${req.method} ${url.pathname}${url.search} main=${main} contents=${json.contents?.length ?? '-'}`);
      // What the model is sent, turn by turn: a role and its parts' kinds (a call's or response's id).
      for (const c of main ? (json.contents ?? []) : []) {
        log(`  ${c.role}: ${(c.parts ?? []).map((p) => (p.functionCall ? `call ${p.functionCall.id ?? p.functionCall.name}` : p.functionResponse ? `response ${p.functionResponse.id ?? p.functionResponse.name}` : p.text !== undefined ? 'text' : Object.keys(p)[0])).join(', ')}`);
      }
      if (method === 'countTokens') {
        return send(res, { totalTokens: 100 });
      }
      if (method !== 'streamGenerateContent' && method !== 'generateContent') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 404, message: `not faked: ${url.pathname}`, status: 'NOT_FOUND' } }));
      }
      let parts;
      let usage = { promptTokenCount: 1000, candidatesTokenCount: 20, totalTokenCount: 1020 };
      if (main) {
        const turn = script[next++];
        if (!turn) {
          parts = [{ text: 'Done.' }];
          log('  script exhausted: answering text');
        } else {
          if (turn.before) {
            await turn.before();
          }
          parts = turn.parts;
          usage = { ...usage, ...turn.usage };
        }
      } else {
        parts = [{ text: sideAnswer(json) }];
      }
      const response = {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage,
        modelVersion: 'gemini-2.5-flash',
        responseId: `fake-${requests.length}`,
      };
      if (method === 'streamGenerateContent') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
      } else {
        send(res, response);
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        turnsPlayed: () => next,
        /** When the last request came (ms since the epoch): an interactive run is idle when none came for a while. */
        lastRequestAt: () => lastRequestAt,
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}

/** The CLI's side requests want JSON of a schema or a summary: a neutral answer for each. */
function sideAnswer(json) {
  const schema = json.generationConfig?.responseJsonSchema ?? json.generationConfig?.responseSchema;
  if (schema) {
    const props = schema.properties ?? {};
    const out = {};
    for (const [k, v] of Object.entries(props)) {
      out[k] = v.enum ? v.enum[0] : v.type === 'boolean' ? false : v.type === 'number' || v.type === 'integer' ? 0 : v.type === 'array' ? [] : 'none';
    }
    return JSON.stringify(out);
  }
  return '<state_snapshot>The user asked for small edits; they were made.</state_snapshot>';
}

function send(res, obj) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}
