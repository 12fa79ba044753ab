/**
 * An Amplifier transcript names no working folder: the files beside it do (events.jsonl's
 * `session:config`, metadata.json's `working_dir`), and `check` hands the folder to the parser.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ConfigFolders, configWorkingFolder, metadataWorkingFolder } from '../../../src/core/parse/amplifier/workingFolder';
import { adapters } from '../../../src/core/parse/registry';
import { streamRules } from '../../../src/core/rules/registry';
import { amplifierWorkingFolder } from '../../../src/io/amplifierFolder';
import { checkFile } from '../../../src/io/checkFile';

/** A `session:config` line as amplifier 2026.07 writes it (danshapiro/freshell's captures, payload kept). */
function configLine(dir: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ts: '2026-07-08T15:50:50.767120714+00:00',
    lvl: 'INFO',
    schema: { name: 'amplifier.log', ver: '1.0.0' },
    event: 'session:config',
    session_id: '1326337c-f0fb-49ff-9ff6-06722c5e0bab',
    data: { parent_id: null, raw: { ...extra, project_dir: dir, working_dir: dir, project_slug: dir.replace(/\//g, '-') } },
  });
}

function eventLine(event: string, data: Record<string, unknown> = {}): string {
  return JSON.stringify({ ts: '2026-07-08T15:50:50+00:00', lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event, session_id: '1326337c-f0fb-49ff-9ff6-06722c5e0bab', data });
}

const ok = '{"error": null, "output": {}, "success": true}';
/** A session that edits `src/a.py`, named relative to its folder, without reading it. */
const blindEdit = [
  { role: 'user', content: 'fix it' },
  { role: 'assistant', content: [], tool_calls: [{ id: 'toolu_1', tool: 'edit_file', arguments: { file_path: 'src/a.py', old_string: 'x', new_string: 'y' } }] },
  { role: 'tool', tool_call_id: 'toolu_1', name: 'edit_file', content: ok },
];

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'amp-cwd-'));
  dir = join(root, 'sessions', '1326337c-f0fb-49ff-9ff6-06722c5e0bab');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'transcript.jsonl'), blindEdit.map((l) => JSON.stringify(l) + '\n').join(''));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const write = (name: string, text: string): void => writeFileSync(join(dir, name), text);
const transcript = (): string => join(dir, 'transcript.jsonl');

void describe('the working folder of one record', () => {
  void test('session:config names it in data.raw.working_dir; metadata.json in working_dir; only absolute folders count', () => {
    assert.equal(configWorkingFolder(JSON.parse(configLine('/tmp/amp-p0-b'))), '/tmp/amp-p0-b');
    assert.equal(configWorkingFolder(JSON.parse(configLine('C:\\Users\\dev\\app'))), 'C:\\Users\\dev\\app');
    assert.equal(configWorkingFolder(JSON.parse(configLine('app'))), undefined);
    assert.equal(configWorkingFolder(JSON.parse(eventLine('session:start', { parent_id: null }))), undefined);
    assert.equal(configWorkingFolder(JSON.parse(eventLine('session:config', { parent_id: null }))), undefined);
    assert.equal(configWorkingFolder({ event: 'session:config', data: { raw: { working_dir: 42 } } }), undefined);
    // freshell's interactive.metadata.json (amplifier 2026.07).
    assert.equal(metadataWorkingFolder({ session_id: '1d2dea08', bundle: 'bundle:anchors', turn_count: 7, working_dir: '/home/dan/code/freshell' }), '/home/dan/code/freshell');
    // microsoft/amplifier-agent's seeds: `{"last_turn": "completed"}`, no folder.
    assert.equal(metadataWorkingFolder({ last_turn: 'completed' }), undefined);
    assert.equal(metadataWorkingFolder({ working_dir: '' }), undefined);
    assert.equal(metadataWorkingFolder(null), undefined);
  });

  void test('the configs of several processes name one folder, or none is certain', () => {
    const one = new ConfigFolders();
    assert.equal(one.seen, false);
    one.add('/a');
    one.add('/a');
    assert.deepEqual([one.seen, one.folder], [true, '/a']);
    one.add('/b');
    assert.deepEqual([one.seen, one.folder], [true, undefined]);
    one.add('/a');
    assert.equal(one.folder, undefined);
  });
});

void describe('amplifierWorkingFolder', () => {
  void test('from the session:config of events.jsonl, short or half a megabyte long', async () => {
    write('events.jsonl', [eventLine('session:start', { parent_id: null }), configLine('/tmp/amp-p0-b'), eventLine('prompt:submit')].join('\n') + '\n');
    assert.equal(await amplifierWorkingFolder(transcript()), '/tmp/amp-p0-b');
    // The real config record holds the whole config (506,855 bytes in microsoft/amplifier-agent's
    // seed); other lines hold whole model requests and are not parsed.
    const agents = { reviewer: { description: 'x'.repeat(600_000) } };
    const request = eventLine('llm:request', { request: 'session:config '.repeat(50_000) });
    write('events.jsonl', [eventLine('session:start'), configLine('/workspace', { agents }), request, ''].join('\n'));
    assert.equal(await amplifierWorkingFolder(transcript()), '/workspace');
  });

  void test('a resume in the same folder keeps it; one in another folder leaves none, not even metadata.json’s', async () => {
    const resumed = (second: string): string =>
      [eventLine('session:start'), configLine('/w/app'), eventLine('prompt:submit'), eventLine('session:end'), eventLine('session:resume'), configLine(second)].join('\n') + '\n';
    write('metadata.json', JSON.stringify({ session_id: 's', working_dir: '/w/other' }));
    write('events.jsonl', resumed('/w/app'));
    assert.equal(await amplifierWorkingFolder(transcript()), '/w/app');
    write('events.jsonl', resumed('/w/other'));
    assert.equal(await amplifierWorkingFolder(transcript()), undefined);
  });

  void test('from metadata.json when events.jsonl names none; else none', async () => {
    write('metadata.json', JSON.stringify({ session_id: 's', created: '2026-07-04T20:29:04+00:00', working_dir: '/home/dan/code/freshell' }, null, 2));
    assert.equal(await amplifierWorkingFolder(transcript()), '/home/dan/code/freshell');
    // An events.jsonl of a build that logged no session:config, or one cut short mid-line.
    write('events.jsonl', eventLine('session:start') + '\n' + configLine('/elsewhere').slice(0, 200));
    assert.equal(await amplifierWorkingFolder(transcript()), '/home/dan/code/freshell');
    write('metadata.json', JSON.stringify({ last_turn: 'completed' }));
    assert.equal(await amplifierWorkingFolder(transcript()), undefined);
    write('metadata.json', '{"working_dir": "/home/d');
    assert.equal(await amplifierWorkingFolder(transcript()), undefined);
  });

  void test('only for a transcript.jsonl: the folder beside another file is not its session’s', async () => {
    write('events.jsonl', configLine('/w/app') + '\n');
    write('copy.jsonl', '');
    assert.equal(await amplifierWorkingFolder(join(dir, 'copy.jsonl')), undefined);
    assert.equal(await amplifierWorkingFolder(join(dir, 'events.jsonl')), undefined);
  });
});

void describe('check of an Amplifier transcript', () => {
  const blind = async (): Promise<string[]> =>
    (await checkFile(transcript(), { adapters, rules: streamRules })).findings.filter((f) => f.rule === 'write-before-read').map((f) => `${f.line} ${f.callId ?? ''} ${f.message}`);

  void test('a relative write-before-read is found with the folder from events.jsonl or metadata.json, and not claimed without', async () => {
    assert.deepEqual(await blind(), []);
    write('metadata.json', JSON.stringify({ working_dir: '/home/dan/code/app' }));
    const fromMetadata = await blind();
    assert.equal(fromMetadata.length, 1);
    assert.match(fromMetadata[0]!, /^2 toolu_1 .*src\/a\.py/);
    rmSync(join(dir, 'metadata.json'));
    write('events.jsonl', [eventLine('session:start'), configLine('/home/dan/code/app')].join('\n') + '\n');
    assert.deepEqual(await blind(), fromMetadata);
  });
});
