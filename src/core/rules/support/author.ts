import type { ChangeAuthor } from '../../engine/rule';

/** "the user", "session 1f2e…", "an unattributed process" — for messages. */
export function describeAuthor(by: ChangeAuthor): string {
  switch (by.kind) {
    case 'user':
      return 'the user';
    case 'session':
      return `another session (${by.sessionId ?? sessionName(by.session)})`;
    case 'unknown':
      return 'an unattributed process';
  }
}

function sessionName(transcript: string): string {
  return (transcript.split(/[\\/]/).pop() ?? transcript).replace(/\.jsonl$/, '');
}

/** Local wall-clock time, HH:MM:SS: what a person compares with their own memory of the session. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
