/**
 * Claude Desktop's local-agent mode ("Cowork") runs Claude Code with its shell in a VM: the
 * shell tool is `mcp__workspace__bash`, and each folder the person shared is mounted there as
 * `/sessions/<vm>/mnt/<folder name>`, while Read, Edit and Write name the same files by their
 * path on the host (`/Users/ana/Developer/…` for `/sessions/<vm>/mnt/Developer/…`). The transcript
 * never says where a mount comes from; the host folder is the one whose last part is the mount's
 * name, as soon as the session names a host path through it.
 */

const vmMount = /^\/sessions\/[^/]+\/mnt\/([^/]+)/;

/** Host paths remembered to place a mount seen later (the newest ones). */
const maxHostPaths = 64;

export interface MountAlias {
  /** The mount in the VM (`/sessions/<vm>/mnt/<name>`). */
  from: string;
  /** The host folder it shows. */
  to: string;
}

export class VmMounts {
  /** VM mount → its host folder, undefined until a host path shows it. */
  private readonly roots = new Map<string, string | undefined>();
  private readonly hostPaths: string[] = [];

  /**
   * A path a call names: a VM path comes back as its host path when the mount is placed (and is
   * remembered as a mount to place otherwise); a host path may place mounts seen before it,
   * which are returned so that what the session knew under them moves to the host.
   */
  place(path: string, pattern = false): { path: string; learned?: MountAlias[] } {
    const m = vmMount.exec(path);
    if (m) {
      const root = m[0];
      let host = this.roots.get(root);
      if (host === undefined) {
        host = this.hostPaths.map((p) => hostFolder(p, m[1]!)).find((h) => h !== undefined);
        this.roots.set(root, host);
      }
      return { path: host === undefined ? path : (pattern ? escapePattern(host) : host) + path.slice(root.length) };
    }
    if (!path.startsWith('/') || pattern) {
      return { path };
    }
    let learned: MountAlias[] | undefined;
    for (const [root, host] of this.roots) {
      if (host !== undefined) {
        continue;
      }
      const found = hostFolder(path, root.slice(root.lastIndexOf('/') + 1));
      if (found !== undefined) {
        this.roots.set(root, found);
        (learned ??= []).push({ from: root, to: found });
      }
    }
    if (this.hostPaths.length >= maxHostPaths) {
      this.hostPaths.shift();
    }
    this.hostPaths.push(path);
    return learned ? { path, learned } : { path };
  }
}

/** The folder named `name` that `path` goes through (its first such folder), if any. */
function hostFolder(path: string, name: string): string | undefined {
  const at = path.indexOf(`/${name}/`);
  return at < 0 ? undefined : path.slice(0, at + 1 + name.length);
}

/** A literal folder at the head of a shell pattern (see ShellAccess.glob: quoted characters are escaped). */
function escapePattern(folder: string): string {
  return folder.replace(/[*?[\]\\]/g, '\\$&');
}
