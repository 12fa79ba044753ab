import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { ConfigFolders, configWorkingFolder, mayBeSessionConfig, metadataWorkingFolder } from '../core/parse/amplifier/workingFolder';

/** Enough of an events.jsonl line to hold its `event` (written fourth, after ts, lvl and schema). */
const prefixBytes = 512;
/** A `session:config` line holds the whole config (half a megabyte in real files): far less than this. */
const maxConfigLineBytes = 64 * 1024 * 1024;
/** A sub-session's metadata.json holds its merged config too. */
const maxMetadataBytes = 16 * 1024 * 1024;

/**
 * The working folder of the Amplifier session whose `transcript.jsonl` this is, where the files
 * beside it name it for certain (see core/parse/amplifier/workingFolder): the `session:config`
 * records of its events.jsonl when they agree (when they disagree, none), else the
 * `working_dir` of its metadata.json. Undefined for any other file, and when neither names one.
 * Files that cannot be read name nothing: the folder only adds to what the transcript says.
 */
export async function amplifierWorkingFolder(transcript: string): Promise<string | undefined> {
  if (nodePath.basename(transcript) !== 'transcript.jsonl') {
    return undefined;
  }
  const dir = nodePath.dirname(transcript);
  const configs = await configFolders(nodePath.join(dir, 'events.jsonl'));
  if (configs.seen) {
    return configs.folder;
  }
  return metadataFolder(nodePath.join(dir, 'metadata.json'));
}

/**
 * The folders the `session:config` records of an events.jsonl name. Only lines whose first
 * bytes name that event are kept and parsed: the others can hold whole model requests.
 */
async function configFolders(file: string): Promise<ConfigFolders> {
  const out = new ConfigFolders();
  let parts: Buffer[] = [];
  let bytes = 0;
  // prefix: the line's first bytes are being gathered; keep: it may be a config record; skip: it is not.
  let state: 'prefix' | 'keep' | 'skip' = 'prefix';
  const take = (piece: Buffer): void => {
    if (state === 'skip' || piece.length === 0) {
      return;
    }
    parts.push(piece);
    bytes += piece.length;
    if (state === 'prefix' && bytes >= prefixBytes) {
      state = mayBeSessionConfig(Buffer.concat(parts).toString('utf8', 0, prefixBytes)) ? 'keep' : 'skip';
    }
    if (state === 'skip' || bytes > maxConfigLineBytes) {
      state = 'skip';
      parts = [];
      bytes = 0;
    }
  };
  const endLine = (): void => {
    if (state !== 'skip' && bytes > 0) {
      const text = Buffer.concat(parts).toString('utf8');
      if (state === 'keep' || mayBeSessionConfig(text)) {
        const dir = configWorkingFolder(parseOrUndefined(text));
        if (dir !== undefined) {
          out.add(dir);
        }
      }
    }
    parts = [];
    bytes = 0;
    state = 'prefix';
  };
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      const buf = chunk as Buffer;
      let from = 0;
      for (;;) {
        const nl = buf.indexOf(0x0a, from);
        take(buf.subarray(from, nl === -1 ? buf.length : nl));
        if (nl === -1) {
          break;
        }
        endLine();
        from = nl + 1;
      }
    }
  } catch {
    // No events.jsonl (older builds, or a session killed before it was written), or one that
    // cannot be read to its end: it names no folder (a record past the error could disagree).
    return new ConfigFolders();
  }
  endLine();
  return out;
}

async function metadataFolder(file: string): Promise<string | undefined> {
  try {
    if ((await stat(file)).size > maxMetadataBytes) {
      return undefined;
    }
    return metadataWorkingFolder(parseOrUndefined(await readFile(file, 'utf8')));
  } catch {
    // No metadata.json (a session killed before its first save), or one that cannot be read.
    return undefined;
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A line or file cut short while its writer was at it: it names nothing yet.
    return undefined;
  }
}
