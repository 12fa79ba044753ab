/** Polls until `pred` returns a truthy value; throws with `what` after `ms`. */
export async function waitFor<T>(pred: () => T | undefined | false | Promise<T | undefined | false>, ms: number, what: string | (() => string)): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await sleep(15);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
