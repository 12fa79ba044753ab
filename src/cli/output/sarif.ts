import { pathToFileURL } from 'node:url';
import type { RuleModule } from '../../core/engine/rule';
import type { Finding, Severity } from '../../core/model/finding';

const level: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/**
 * SARIF 2.1.0 log (https://docs.oasis-open.org/sarif/sarif/v2.1.0/): one run, one result per finding.
 * `problems`: paths that could not be read. They go into the run's invocation, so that a log
 * uploaded to code scanning does not pass for a complete run (`check` exits 2 on them).
 * `notSearched`: folders left out by design (too deep below the folder named), as warnings: the
 * run did what it says, but a reader of the log alone should know what it did not look at.
 * `srcRoot` (the working folder): files under it are named relative to `%SRCROOT%`, which names
 * it. GitHub code scanning annotates a file only by its path in the repository, and an absolute
 * file:// URI, which holds the checkout's folder on the CI machine, matches none. Files outside
 * it keep their absolute URI.
 */
export function renderSarif(
  findings: readonly Finding[],
  rules: readonly RuleModule[],
  version: string,
  problems: readonly { path: string; message: string }[] = [],
  srcRoot?: string,
  notSearched: readonly { path: string; message: string }[] = [],
): string {
  const ruleIndex = new Map(rules.map((r, i) => [r.meta.id, i]));
  const extraRules = [...new Set(findings.map((f) => f.rule).filter((id) => !ruleIndex.has(id)))];
  const descriptors = [
    ...rules.map((r) => ({
      id: r.meta.id,
      shortDescription: { text: r.meta.docs.description },
      helpUri: r.meta.docs.url,
      defaultConfiguration: { level: level[r.meta.defaultSeverity] },
    })),
    ...extraRules.map((id) => ({ id, shortDescription: { text: id } })),
  ];
  extraRules.forEach((id, i) => ruleIndex.set(id, rules.length + i));
  // With a trailing slash, as SARIF requires of a base URI (and so that a relative URI resolves inside it).
  const base = srcRoot === undefined ? undefined : pathToFileURL(srcRoot).href.replace(/\/?$/, '/');
  const artifact = (file: string): { uri: string; uriBaseId?: string } => {
    const href = pathToFileURL(file).href;
    if (base === undefined || !href.startsWith(base) || href.length === base.length) {
      return { uri: href };
    }
    // Escaped as pathToFileURL escapes it, and a colon too: a first segment holding one would
    // read as a URI scheme.
    return { uri: href.slice(base.length).replace(/:/g, '%3A'), uriBaseId: '%SRCROOT%' };
  };
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'agent-guard',
            fullName: 'Agent Session Guard',
            version,
            informationUri: 'https://github.com/agent-session-guard/agent-session-guard',
            rules: descriptors,
          },
        },
        ...(base !== undefined ? { originalUriBaseIds: { '%SRCROOT%': { uri: base } } } : {}),
        invocations: [
          {
            executionSuccessful: problems.length === 0,
            ...(problems.length + notSearched.length > 0
              ? {
                  toolExecutionNotifications: [
                    ...problems.map((p) => ({ p, level: 'error' })),
                    ...notSearched.map((p) => ({ p, level: 'warning' })),
                  ].map(({ p, level }) => ({
                    level,
                    message: { text: p.message },
                    locations: [{ physicalLocation: { artifactLocation: artifact(p.path) } }],
                  })),
                }
              : {}),
          },
        ],
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: ruleIndex.get(f.rule),
          level: level[f.severity],
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifact(f.file),
                region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: Math.max(f.endColumn, f.column) },
              },
            },
          ],
          ...(f.related.length > 0
            ? {
                relatedLocations: f.related.map((r, id) => ({
                  id,
                  message: { text: r.message },
                  physicalLocation: { artifactLocation: artifact(r.file), region: { startLine: r.line } },
                })),
              }
            : {}),
          partialFingerprints: { agentGuardFindingId: fingerprint(f, artifact(f.file).uri) },
          properties: { agent: f.agent, session: f.session },
        })),
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

/**
 * The finding's id (rule, file, the rule's own key) with the file named as the log names it:
 * relative to %SRCROOT% when under it. The id holds the absolute path, so the same finding got
 * another fingerprint on another machine or checkout folder, and code scanning took it for new.
 */
function fingerprint(f: Finding, uri: string): string {
  const prefix = `${f.rule}|${f.file}|`;
  return f.id.startsWith(prefix) ? `${f.rule}|${uri}|${f.id.slice(prefix.length)}` : f.id;
}
