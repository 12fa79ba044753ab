// A local stand-in for the Anthropic Messages API that answers from a script, so that the real
// Claude Code can be run here (no network) and what it writes can be checked.
//
// A request is routed by the last `[[key]]` marker in its user messages: each prompt of a
// scenario carries one, and so does every prompt a script gives a sub-agent. The answer is the
// script's turn for that key, picked by how many assistant messages follow that prompt, so a
// retried request gets the same turn again. Requests without a marker (a title,
// a summary for compaction) get a short text.
import http from 'node:http';

const marker = /\[\[([a-z0-9-]+)\]\]/;

/**
 * The last marker in the request's user messages, and how many assistant messages follow the
 * message holding it (the turn to play), or undefined.
 */
function routeOf(body) {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const parts = typeof m.content === 'string' ? [m.content] : (m.content ?? []).map((b) => (b.type === 'text' ? b.text : ''));
    for (const p of parts) {
      const found = marker.exec(p);
      if (found) return { key: found[1], turn: messages.slice(i + 1).filter((n) => n.role === 'assistant').length };
    }
  }
  return undefined;
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * Starts the server on a free port of 127.0.0.1. `turns(key)` returns the scenario's list of
 * turns for that key; a turn is a list of content blocks, or an async function returning one
 * (it may change the workspace first, as a person or a formatter would between two turns), or
 * an API error to answer with, `{ status, error: { type, message } }`.
 */
export async function startFakeApi(turns, log = () => {}) {
  let messages = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      let body = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: answered below like any request the script does not know
      }
      if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      const route = routeOf(body);
      const key = route?.key;
      const turn = key === undefined ? undefined : turns(key)?.[route.turn];
      log({ key, turn: route?.turn, messages: body.messages?.length ?? 0, tools: body.tools?.length ?? 0 });
      let blocks = [{ type: 'text', text: key === undefined ? 'Summary: the session read and edited a few files.' : 'Nothing more to do.' }];
      if (turn) blocks = typeof turn === 'function' ? await turn() : turn;
      if (!Array.isArray(blocks)) {
        // An API error: `{ status, error: { type, message } }`, answered as the API does.
        res.writeHead(blocks.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: blocks.error }));
        return;
      }
      const id = `msg_drive${String(++messages).padStart(16, '0')}`;
      const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const model = body.model || 'claude-sonnet-4-5';
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
      blocks.forEach((b, index) => {
        if (b.type === 'text') {
          sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
        } else {
          sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
        }
        sse(res, 'content_block_stop', { type: 'content_block_stop', index });
      });
      sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}
