/** Scaffolding scripts that name the files they create only in their output (GitHub's spec-kit). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scaffoldedFiles, scaffoldKeys } from '../../../src/core/classify/scaffolds';

void describe('scaffolding scripts', () => {
  void test('which commands run one, and which output fields name the files it made', () => {
    assert.deepEqual(scaffoldKeys('.specify/scripts/bash/create-new-feature.sh --json "Add login"'), ['SPEC_FILE']);
    assert.deepEqual(scaffoldKeys('cd /p && bash .specify/scripts/bash/setup-plan.sh --json'), ['IMPL_PLAN']);
    assert.deepEqual(scaffoldKeys("pwsh -File '.specify/scripts/powershell/create-new-feature.ps1' -Json 'x'"), ['SPEC_FILE']);
    assert.deepEqual(scaffoldKeys('C:\\p\\.specify\\scripts\\powershell\\create-new-feature.ps1 -Json x'), ['SPEC_FILE']);
    // Read, not run: its source has the same JSON keys.
    for (const no of ['cat .specify/scripts/bash/create-new-feature.sh', 'cat .specify/scripts/bash/create-new-feature.sh.bak', 'ls scripts', 'my-create-new-feature.sh --json']) {
      assert.equal(scaffoldKeys(no), undefined, no);
    }
  });

  void test('the files, resolved against the folder the script ran in; other fields are not files', () => {
    const output = 'Chunk ID: 1f83ec\nOutput:\n{"BRANCH_NAME":"007-x","SPEC_FILE":"/p/specs/007-x/spec.md","FEATURE_NUM":"007"}\n';
    assert.deepEqual(scaffoldedFiles(['SPEC_FILE'], output, '/p'), ['/p/specs/007-x/spec.md']);
    assert.deepEqual(scaffoldedFiles(['IMPL_PLAN'], '{"FEATURE_SPEC":"specs/a/spec.md","IMPL_PLAN":"specs/a/plan.md","SPECS_DIR":"specs/a"}', '/p'), ['/p/specs/a/plan.md']);
    assert.deepEqual(scaffoldedFiles(['SPEC_FILE'], '{\n  "SPEC_FILE": "C:\\\\w\\\\specs\\\\001-a\\\\spec.md"\n}', 'C:\\w'), ['C:\\w\\specs\\001-a\\spec.md']);
    assert.deepEqual(scaffoldedFiles(['SPEC_FILE'], 'ERROR: no template', '/p'), []);
  });
});
