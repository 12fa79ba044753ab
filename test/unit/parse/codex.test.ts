/** The Codex CLI adapter on shapes of its newest rollouts (0.154, September 2026). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';

void describe('Codex rollouts of forked threads', () => {
  void test("a forked sub-agent's file is its own session, though it copies its parent's session_meta", () => {
    const parent = '01a095a4-ebb9-7c10-a8e3-0e8e7fc24e87';
    const child = '01a096bd-f639-7a63-a4f5-d6d16856db43';
    const r = new CodexRollout(child, '/home/runner/workspace', false)
      .item('session_meta', { session_id: parent, id: child, forked_from_id: parent, parent_thread_id: parent, timestamp: '2026-09-12T17:50:26.891Z', cwd: '/home/runner/workspace', cli_version: '0.154.0' })
      // The parent's history, copied: its own session_meta first.
      .item('session_meta', { session_id: parent, id: parent, timestamp: '2026-09-12T12:43:28.584Z', cwd: '/home/runner/workspace', cli_version: '0.154.0' })
      .user('go');
    const { stream } = run(r.text(), { file: '/tmp/rollout-2026-09-12T17-50-26-child.jsonl' });
    assert.equal(stream.engine.sessionId, child);
    assert.equal(stream.engine.sessionInfo?.parentSessionId, parent);
    assert.equal(stream.engine.sessionInfo?.startedAt, '2026-09-12T17:50:26.891Z');
  });
});

void describe("Codex names the user's home folder in its skills list", () => {
  // doudouqie66/CommonTools rollout-2026-06-29T17-22-40-019f12b0…: the session works in
  // C:\WeGameApps\…; line 3 lists `(file: C:/Users/admin/.codex/skills/.system/imagegen/SKILL.md)`,
  // line 25 reads "$env:USERPROFILE\Desktop\test.csv", line 33 patches C:\Users\admin\Desktop\test.csv.
  const cwd = 'C:\\WeGameApps\\rail_apps\\UGCProjects\\Douluo';
  const skills = (home: string): string =>
    `<skills_instructions>\n### Available skills\n- imagegen: Generate or edit raster images. (file: ${home}/.codex/skills/.system/imagegen/SKILL.md)\n- find-skills: Find skills. (file: C:/Users/admin/.agents/skills/find-skills/SKILL.md)\n</skills_instructions>`;
  const session = (first: CodexRollout): string[] => {
    const r = first
      .exec('c1', 'Get-Content -LiteralPath "$env:USERPROFILE\\Desktop\\test.csv" -Raw')
      .output('c1', 'Chunk ID: 5a8946\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n---,HunHuanID\n2,"8310102"\n')
      .patch('p1', '*** Begin Patch\n*** Update File: C:\\Users\\admin\\Desktop\\test.csv\n@@\n-2,"8310102"\n+8310102,"8310102"\n*** End Patch')
      .output('p1', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM C:\\Users\\admin\\Desktop\\test.csv\n', true);
    return run(r.text(), { file: '/tmp/rollout-2026-06-29T17-22-40-x.jsonl' }).findings.map((f) => f.rule);
  };
  void test('$env:USERPROFILE is the parent of CODEX_HOME when that is a home folder\'s .codex', () => {
    assert.deepEqual(session(new CodexRollout(undefined, cwd).developer(skills('C:/Users/admin')).user('fix test.csv')), []);
    // Older builds put the list in a user message.
    assert.deepEqual(session(new CodexRollout(undefined, cwd).user(`# AGENTS.md instructions for ${cwd}\n\n${skills('C:/Users/admin')}`).user('fix test.csv')), []);
  });
  void test('the AGENTS.md Codex sends as a user message is no prompt: the first prompt is what the person typed', () => {
    const r = run(new CodexRollout(undefined, cwd).user(`# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\nUse tabs.\n</INSTRUCTIONS>`).user('fix test.csv').text());
    const texts = r.events.filter((e) => e.kind === 'text' && e.role === 'user');
    assert.deepEqual(
      texts.map((e) => (e.kind === 'text' ? [e.prompt, e.preview] : [])),
      [
        [false, undefined],
        [true, 'fix test.csv'],
      ],
    );
  });
  void test('no home named, or a CODEX_HOME that is not a home folder\'s .codex: the write stays blind', () => {
    assert.deepEqual(session(new CodexRollout(undefined, cwd).user('fix test.csv')), ['write-before-read']);
    assert.deepEqual(session(new CodexRollout(undefined, cwd).developer(skills('D:/tools')).user('fix test.csv')), ['write-before-read']);
    // A listing's output names the home folder too: not taken from there.
    const listed = new CodexRollout(undefined, cwd)
      .user('fix test.csv')
      .exec('l1', 'Get-ChildItem -LiteralPath "$env:USERPROFILE\\Desktop"')
      .output('l1', 'Chunk ID: c1996b\nWall time: 0.0201 seconds\nProcess exited with code 0\nOutput:\nFullName : C:\\Users\\admin\\Desktop\\test.csv (file: C:/Users/admin/.codex/skills/.system/x/SKILL.md)\n');
    assert.deepEqual(session(listed), ['write-before-read']);
  });
});

void describe('Codex in VS Code puts the active selection into the prompt', () => {
  // BearTDK6/ba-pro rollout-2026-01-12T23-12-06-019bb2fa…: line 5 holds the selected lines of
  // src/services/SurchargeFeeSettingService.ts, line 18 patches one of them.
  const cwd = '/Users/kane/Workspace/acp-hotel-service';
  const prompt = (selection: boolean): string =>
    '# Context from my IDE setup:\n\n## Active file: src/services/SurchargeFeeSettingService.ts\n\n' +
    (selection ? '## Active selection of the file:\nprivate validateDetails(details?: SurchargeDetail[]) {\n      if (detail.fromAge >= detail.toAge) {\n  }\n' : '') +
    '## Open tabs:\n- SurchargeFeeSettingService.ts: src/services/SurchargeFeeSettingService.ts\n\n## My request for Codex:\nfix the age check\n';
  const findings = (selection: boolean): string[] => {
    const r = new CodexRollout(undefined, cwd)
      .user(prompt(selection))
      .patch('p1', `*** Begin Patch\n*** Update File: ${cwd}/src/services/SurchargeFeeSettingService.ts\n@@\n-      if (detail.fromAge >= detail.toAge) {\n+      if (detail.fromAge > detail.toAge) {\n*** End Patch`)
      .output('p1', '{"output":"Success. Updated the following files:\\nM src/services/SurchargeFeeSettingService.ts\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}', true);
    return run(r.text(), { file: '/tmp/rollout-2026-01-12T23-12-06-x.jsonl' }).findings.map((f) => f.rule);
  };
  void test('the active file, with its selection shown, was seen', () => {
    assert.deepEqual(findings(true), []);
  });
  void test('the active file named alone (and the open tabs) is no look at it', () => {
    assert.deepEqual(findings(false), ['write-before-read']);
  });
});

void describe('Codex code mode: a script the user interrupted', () => {
  // adinaMiron/sculaLuMiron rollout-2026-10-09T09-38-28-01a11f62… (Codex CLI 1.19.2, fifty-second
  // set), line 19: the script's output is the bare string, not its parts.
  void test('is answered as failed, as an interrupted command is', () => {
    const result = (output: unknown): boolean | undefined => {
      const r = run(
        new CodexRollout()
          .user('go')
          .item('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'c1', name: 'exec', input: "await tools.exec_command({ cmd: 'git status' });" })
          .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output })
          .text(),
      );
      const e = r.events.find((x) => x.kind === 'result');
      return e?.kind === 'result' ? e.isError : undefined;
    };
    assert.equal(result('aborted by user after 14.0s'), true);
    assert.equal(result([{ type: 'input_text', text: 'Script completed\nWall time 0.1 seconds\nOutput:\n' }]), false);
  });
});
