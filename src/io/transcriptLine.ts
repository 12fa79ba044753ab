import { createReadStream } from 'node:fs';
import { LineSplitter } from '../core/parse/lineSplitter';

/**
 * The text of one line of a transcript, streamed (transcripts can be hundreds of MB; only
 * the bytes up to that line are read, and only that line is kept).
 */
export async function readTranscriptLine(file: string, lineNo: number): Promise<string | undefined> {
  const splitter = new LineSplitter();
  let found: string | undefined;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream) {
      splitter.push(chunk as Buffer, (l) => {
        if (l.lineNo === lineNo) {
          found = l.text;
        }
      });
      if (found !== undefined || splitter.linesEmitted >= lineNo) {
        break;
      }
    }
    if (found === undefined) {
      splitter.end((l) => {
        if (l.lineNo === lineNo) {
          found = l.text;
        }
      });
    }
  } finally {
    stream.destroy();
  }
  return found;
}

/**
 * The most lines a partial read is put back at its place with: the transcript says where the
 * read started, any number (`startLine: 1e9`), and a line of padding per line before it made a
 * string of gigabytes in the extension host for one click on Show Read Diff. A real file that
 * long is no file VS Code can diff anyway.
 */
export const maxSnapshotPadLines = 1_000_000;

/**
 * The snapshot as a document for the left side of a diff: a partial read keeps its lines where
 * they were in the file (so the diff lines up), as far as maxSnapshotPadLines allows.
 */
export function snapshotDocument(snap: { content: string; partial: boolean; startLine: number }): string {
  if (!snap.partial || !(snap.startLine > 1)) {
    return snap.content;
  }
  const before = Math.floor(snap.startLine) - 1;
  if (before > maxSnapshotPadLines) {
    return `⋯ (lines 1 to ${before} not read by the session)\n` + snap.content;
  }
  return '⋯ (not read by the session)\n'.repeat(before) + snap.content;
}

/**
 * What a session saw of a file, from the transcript line that recorded the read (or its own
 * write): Claude Code's `toolUseResult.file` / `content`; Codex, Gemini and Amplifier tool
 * output text. Undefined when the line holds no such record.
 */
export function snapshotFromLine(text: string): { content: string; partial: boolean; startLine: number } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const tur = o['toolUseResult'];
  if (typeof tur === 'object' && tur !== null) {
    const t = tur as Record<string, unknown>;
    const file = t['file'];
    if (typeof file === 'object' && file !== null) {
      const f = file as Record<string, unknown>;
      if (typeof f['content'] === 'string') {
        const start = typeof f['startLine'] === 'number' ? f['startLine'] : 1;
        const partial = start > 1 || (typeof f['numLines'] === 'number' && typeof f['totalLines'] === 'number' && f['numLines'] < f['totalLines']);
        return { content: f['content'], partial, startLine: start };
      }
    }
    if (typeof t['content'] === 'string' && typeof t['filePath'] === 'string') {
      return { content: t['content'], partial: false, startLine: 1 };
    }
  }
  const payload = o['payload'];
  if (typeof payload === 'object' && payload !== null && typeof (payload as Record<string, unknown>)['output'] === 'string') {
    return { content: (payload as Record<string, string>)['output']!, partial: false, startLine: 1 };
  }
  if (o['role'] === 'tool' && typeof o['content'] === 'string') {
    return { content: o['content'], partial: false, startLine: 1 };
  }
  return undefined;
}
