/** Scaffolding scripts that name the files they create only in their output (spec-kit, skill-creator). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scaffoldOf } from '../../../src/core/classify/scaffolds';

/** What `command` created, by its output, run in `cwd`; undefined when it runs no scaffolding script. */
const created = (command: string, output: string, cwd = '/p'): string[] | undefined => scaffoldOf(command)?.files(output, cwd);

const specOutput = 'Chunk ID: 1f83ec\nOutput:\n{"BRANCH_NAME":"007-x","SPEC_FILE":"/p/specs/007-x/spec.md","FEATURE_NUM":"007"}\n';

void describe('scaffolding scripts', () => {
  void test('which commands run one: as a command or given to an interpreter, not named otherwise', () => {
    for (const yes of [
      '.specify/scripts/bash/create-new-feature.sh --json "Add login"',
      'cd /p && bash .specify/scripts/bash/create-new-feature.sh --json',
      "pwsh -File '.specify/scripts/powershell/create-new-feature.ps1' -Json 'x'",
      'C:\\p\\.specify\\scripts\\powershell\\create-new-feature.ps1 -Json x',
    ]) {
      assert.deepEqual(created(yes, specOutput), ['/p/specs/007-x/spec.md'], yes);
    }
    // Read, not run: the script's source has the same JSON keys.
    for (const no of ['cat .specify/scripts/bash/create-new-feature.sh', 'cat .specify/scripts/bash/create-new-feature.sh.bak', 'ls scripts', 'my-create-new-feature.sh --json']) {
      assert.equal(created(no, specOutput), undefined, no);
    }
  });

  void test('spec-kit: the fields that name a file it created, resolved against where it ran; other fields are not files', () => {
    assert.deepEqual(created('.specify/scripts/bash/setup-plan.sh --json', '{"FEATURE_SPEC":"specs/a/spec.md","IMPL_PLAN":"specs/a/plan.md","SPECS_DIR":"specs/a"}'), ['/p/specs/a/plan.md']);
    assert.deepEqual(created('.specify/scripts/powershell/create-new-feature.ps1 -Json x', '{\n  "SPEC_FILE": "C:\\\\w\\\\specs\\\\001-a\\\\spec.md"\n}', 'C:\\w'), ['C:\\w\\specs\\001-a\\spec.md']);
    assert.deepEqual(created('.specify/scripts/bash/create-new-feature.sh --json x', 'ERROR: no template'), []);
  });

  void test("Codex's skill-creator: each file it says it created, under the skill directory it made", () => {
    const output =
      'Initializing skill: starter\n\n[OK] Created skill directory: /p/.codex/skills/public/starter\n[OK] Created SKILL.md\n[OK] Created scripts/example.py\n\n[OK] Skill \'starter\' initialized successfully at /p/.codex/skills/public/starter\n';
    assert.deepEqual(created('python3 /p/.codex/skills/.system/skill-creator/scripts/init_skill.py starter --path /p/.codex/skills/public --examples', output), [
      '/p/.codex/skills/public/starter/SKILL.md',
      '/p/.codex/skills/public/starter/scripts/example.py',
    ]);
    assert.deepEqual(created('python3 scripts/init_skill.py starter --path x', '[ERROR] Skill directory already exists'), []);
  });
});
