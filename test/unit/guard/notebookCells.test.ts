import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ipynbHoldsCells, type NotebookCellText } from '../../../src/core/guard/notebookCells';

/** An .ipynb file's bytes as VS Code's Jupyter serializer writes them: the source as lines. */
function ipynb(cells: { cell_type: string; source: string | string[] }[]): Uint8Array {
  const full = cells.map((c) => ({ ...c, metadata: {}, ...(c.cell_type === 'code' ? { outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }], execution_count: 1 } : {}) }));
  return new TextEncoder().encode(JSON.stringify({ cells: full, metadata: { kernelspec: { name: 'python3' } }, nbformat: 4, nbformat_minor: 5 }, null, 1));
}

void describe('a notebook file holding the editor’s cells', () => {
  const mine: NotebookCellText[] = [
    { kind: 'markup', text: '# Title\nsome text' },
    { kind: 'code', text: 'import os\nprint(os.name)' },
  ];

  void test('the same cells, their source split in lines or not, outputs and metadata aside: held', () => {
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'markdown', source: ['# Title\n', 'some text'] }, { cell_type: 'code', source: ['import os\n', 'print(os.name)'] }]), mine), true);
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'markdown', source: '# Title\nsome text' }, { cell_type: 'code', source: 'import os\nprint(os.name)' }]), mine), true);
    // Lines written without their line feed (by hand, by other tools) are read with one.
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'markdown', source: ['# Title', 'some text'] }, { cell_type: 'code', source: ['import os', 'print(os.name)'] }]), mine), true);
    // A raw cell is a code cell in the editor.
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'raw', source: 'x' }]), [{ kind: 'code', text: 'x' }]), true);
    // The buffer's CRLF line ends are saved as LF.
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'code', source: ['a\n', 'b'] }]), [{ kind: 'code', text: 'a\r\nb' }]), true);
    assert.equal(ipynbHoldsCells(ipynb([]), []), true, 'no cells on either side');
  });

  void test('another cell text, kind, order or count: not held', () => {
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'markdown', source: '# Title\nsome text' }, { cell_type: 'code', source: 'import os\nprint(os.sep)' }]), mine), false, 'a text');
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'code', source: '# Title\nsome text' }, { cell_type: 'code', source: 'import os\nprint(os.name)' }]), mine), false, 'a kind');
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'code', source: 'import os\nprint(os.name)' }, { cell_type: 'markdown', source: '# Title\nsome text' }]), mine), false, 'the order');
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'markdown', source: '# Title\nsome text' }]), mine), false, 'a cell fewer');
    assert.equal(ipynbHoldsCells(ipynb([{ cell_type: 'code', source: 'x\n' }]), [{ kind: 'code', text: 'x' }]), false, 'a trailing line feed');
  });

  void test('content that is not a notebook holds no cells', () => {
    const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
    assert.equal(ipynbHoldsCells(enc(''), []), false, 'empty');
    assert.equal(ipynbHoldsCells(enc('{"cells": [{"cell_type": "code"'), []), false, 'cut short');
    assert.equal(ipynbHoldsCells(enc('{"nbformat": 4}'), []), false, 'no cells');
    assert.equal(ipynbHoldsCells(enc('{"cells": [{"cell_type": "code", "source": 1}]}'), [{ kind: 'code', text: '1' }]), false, 'a source that is no text');
    assert.equal(ipynbHoldsCells(Uint8Array.from([0x7b, 0xff, 0x7d]), []), false, 'not UTF-8');
    // A byte that is not UTF-8 inside a cell's text: the editor cannot hold what the file holds.
    const broken = Uint8Array.from([...enc('{"cells": [{"cell_type": "code", "source": "a'), 0xff, ...enc('b"}]}')]);
    assert.equal(ipynbHoldsCells(broken, [{ kind: 'code', text: 'a\ufffdb' }]), false, 'not UTF-8 in a cell');
  });
});
