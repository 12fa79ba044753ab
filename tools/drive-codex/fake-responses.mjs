// A scripted stand-in for the OpenAI Responses API, enough for Codex CLI 0.171 to run a
// session against (codex-rs/codex-api/src/sse/responses.rs reads `response.created`,
// `response.output_item.added`/`.done`, `response.completed`; anything else is ignored).
//
// Each POST /v1/responses is answered by the next turn of the script, in order, so a run is
// deterministic. A turn is `{ items, before?, usage? }`: `items` are the output items the model
// "produces", or a function of the request body that returns them (several function calls in
// one turn are parallel calls); `before` runs when the request arrives, i.e. after Codex has
// run the previous turn's calls (the driver uses it to change a file on disk between two
// turns, as a user would); `usage` is the total tokens the response reports (default 110).
// Requests of another thread than the first (a sub-agent's) play `script.child` instead.
//
// Not run by CI and not shipped: tools/drive-codex/README.md says how it is used.
import http from 'node:http';

/**
 * Starts the server on 127.0.0.1 with an ephemeral port.
 * @param {{ turns: Array<{ items: object[], before?: (body: object) => void }> }} script
 * @param {(entry: object) => void} [log] every request's path and parsed body
 * @returns {Promise<{ url: string, close: () => Promise<void>, remaining: () => number }>}
 */
export function startFakeResponses(script, log = () => {}) {
  let next = 0;
  let nextChild = 0;
  let mainThread;
  let seq = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      log({ method: req.method, path: req.url, body });
      if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
        // Codex asks a custom provider for its models; an empty list keeps its built-in table.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ models: [] }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      // A sub-agent is a thread of its own: its requests play `script.child`, in order.
      const thread = body?.client_metadata?.thread_id ?? body?.prompt_cache_key;
      mainThread ??= thread;
      const child = script.child !== undefined && thread !== mainThread;
      const turn = child ? script.child[nextChild++] : script.turns[next++];
      if (turn === undefined) {
        // Past the end of the script: a plain answer ends the turn instead of hanging Codex.
        sse(res, `resp_${++seq}`, [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }]);
        return;
      }
      try {
        await turn.before?.(body);
      } catch (e) {
        log({ error: String(e) });
      }
      const items = typeof turn.items === 'function' ? turn.items(body) : turn.items;
      sse(res, `resp_${++seq}`, items, turn.usage);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        remaining: () => script.turns.length - next + (script.child?.length ?? 0) - nextChild,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** One streamed response: created, each item added then done, completed with usage. */
function sse(res, id, items, usage = 110) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  send({ type: 'response.created', response: { id } });
  items.forEach((item, i) => {
    const withId = { id: `item_${id}_${i}`, ...item };
    send({ type: 'response.output_item.added', output_index: i, item: withId });
    if (item.type === 'message') {
      const text = item.content?.map((c) => c.text ?? '').join('') ?? '';
      send({ type: 'response.output_text.delta', output_index: i, content_index: 0, delta: text });
    }
    send({ type: 'response.output_item.done', output_index: i, item: withId });
  });
  send({
    type: 'response.completed',
    response: {
      id,
      usage: {
        input_tokens: usage - 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 10,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage,
      },
    },
  });
  res.end();
}
