import { z } from 'zod';

/** A notebook cell as the editor holds it: what the editor guard compares with a file. */
export interface NotebookCellText {
  kind: 'code' | 'markup';
  text: string;
}

/** The part of a Jupyter notebook (nbformat 4) the comparison reads. */
const ipynbSchema = z.object({
  cells: z.array(
    z.object({
      cell_type: z.string(),
      source: z.union([z.string(), z.array(z.string())]),
    }),
  ),
});

/**
 * Does this `.ipynb` content hold exactly these cells (kind and text, in order)? A notebook's
 * buffer is cells, not its file's bytes, so this is how the editor guard tells the editor's
 * own save (the file now holds what the editor shows) from another writer's. Outputs and
 * metadata are not compared: a file with the same cells holds nothing of the user's that the
 * buffer does not. Content that is not a notebook holds no cells.
 *
 * The text of a cell is read as VS Code's Jupyter serializer reads it (extensions/ipynb,
 * `concatMultilineString`): the lines of `source` joined, a line not ending in `\n` given one
 * unless it is the last; and the buffer's line ends count as `\n`, as that serializer writes them.
 */
export function ipynbHoldsCells(content: Uint8Array, cells: readonly NotebookCellText[]): boolean {
  const held = ipynbCells(content);
  return held !== undefined && sameCells(held, cells);
}

/** The cells of this `.ipynb` content as the editor reads them (see ipynbHoldsCells); undefined when it is not a notebook. */
export function ipynbCells(content: Uint8Array): NotebookCellText[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(content));
  } catch {
    return undefined;
  }
  const parsed = ipynbSchema.safeParse(json);
  if (!parsed.success) {
    return undefined;
  }
  return parsed.data.cells.map((c) => ({ kind: c.cell_type === 'markdown' ? 'markup' : 'code', text: sourceText(c.source) }));
}

/** Do the file's cells (from ipynbCells) hold the buffer's, its line ends as the serializer writes them? */
export function sameCells(held: readonly NotebookCellText[], buffer: readonly NotebookCellText[]): boolean {
  return held.length === buffer.length && held.every((c, i) => c.kind === buffer[i]!.kind && c.text === buffer[i]!.text.replace(/\r\n/g, '\n'));
}

function sourceText(source: string | readonly string[]): string {
  if (typeof source === 'string') {
    return source;
  }
  return source.map((line, i) => (i < source.length - 1 && !line.endsWith('\n') ? `${line}\n` : line)).join('');
}
