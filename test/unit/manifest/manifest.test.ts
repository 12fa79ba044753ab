/** package.json is the UI's truth; the code's id maps and settings schema must match it. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { defaultSettings, folderSettings, settingKeys, settingsPrefix } from '../../../src/core/config/settings';
import { severities } from '../../../src/core/model/finding';
import { allRules } from '../../../src/core/rules/all';
import { commandIds, contextKeys, productName, viewIds, webviewPanelIds } from '../../../src/vscode/ids';
import { repoRoot } from '../support/repo';

interface Manifest {
  main: string;
  bin: Record<string, string>;
  extensionKind: string[];
  activationEvents: string[];
  contributes: {
    commands: { command: string; title: string }[];
    views: Record<string, { id: string }[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    configuration: { properties: Record<string, { default?: unknown; enum?: string[]; scope?: string }> };
    menus: Record<string, { command: string }[]>;
    walkthroughs: { steps: { id: string; description: string; completionEvents?: string[]; media: { markdown?: string } }[] }[];
  };
}

const manifest = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as Manifest;

void test('every command in package.json is in commandIds and the other way round', () => {
  assert.deepEqual(manifest.contributes.commands.map((c) => c.command).sort(), Object.values(commandIds).sort());
});

void test('one product name: the palette category, the activity bar, the settings and the walkthrough all say productName', () => {
  const m = manifest as unknown as {
    displayName: string;
    contributes: {
      commands: { command: string; category?: string }[];
      viewsContainers: { activitybar: { title: string }[] };
      views: Record<string, { name: string; contextualTitle?: string }[]>;
      configuration: { title: string };
      walkthroughs: { title: string }[];
    };
  };
  assert.equal(m.displayName, productName);
  for (const c of m.contributes.commands) {
    assert.equal(c.category, productName, c.command);
  }
  assert.deepEqual(m.contributes.viewsContainers.activitybar.map((c) => c.title), [productName]);
  for (const v of m.contributes.views[viewIds.container] ?? []) {
    assert.equal(v.contextualTitle, productName, v.name);
  }
  assert.equal(m.contributes.configuration.title, productName);
  for (const w of m.contributes.walkthroughs) {
    assert.ok(w.title.includes(productName), w.title);
  }
});

void test('no text calls the product by another name', () => {
  // "Agent Guard" (the old palette category) and "Agent Sessions" (the old activity bar title)
  // named the same product as "Agent Session Guard". Ids and the CLI, `agent-guard`, stay.
  const other = /\bAgent (?:Guard|Sessions)\b/;
  const files = (dir: string): string[] =>
    readdirSync(path.join(repoRoot(), dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      return e.isDirectory() ? (rel === path.join('media', 'dist') ? [] : files(rel)) : /\.(ts|md|json|css|html)$/.test(e.name) ? [rel] : [];
    });
  for (const rel of ['package.json', 'README.md', ...files('src'), ...files('docs'), ...files('media')]) {
    const text = readFileSync(path.join(repoRoot(), rel), 'utf8');
    const hit = other.exec(text);
    assert.equal(hit, null, `${rel}: "${hit?.[0]}"`);
  }
});

void test('menus only name declared commands (or built-in ones)', () => {
  const declared = new Set(Object.values(commandIds));
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
    for (const item of items) {
      assert.ok(declared.has(item.command as never), `${menu}: ${item.command}`);
    }
  }
});

void test('views and the activity bar container match viewIds; their icons exist', () => {
  assert.deepEqual(manifest.contributes.viewsContainers.activitybar.map((c) => c.id), [viewIds.container]);
  assert.deepEqual(manifest.contributes.views[viewIds.container]?.map((v) => v.id), [viewIds.sessions]);
  for (const c of manifest.contributes.viewsContainers.activitybar) {
    assert.ok(existsSync(path.join(repoRoot(), c.icon)), c.icon);
  }
  for (const w of manifest.contributes.walkthroughs) {
    for (const s of w.steps) {
      if (s.media.markdown) {
        assert.ok(existsSync(path.join(repoRoot(), s.media.markdown)), s.media.markdown);
      }
    }
  }
});

void test('every walkthrough step is completed by doing what it says, not only by "Mark Done"', () => {
  for (const step of manifest.contributes.walkthroughs.flatMap((w) => w.steps)) {
    const events = step.completionEvents ?? [];
    assert.ok(events.length > 0, `${step.id}: no completion event`);
    for (const e of events) {
      const [kind, target] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)];
      if (kind === 'onCommand') {
        assert.ok(step.description.includes(`](command:${target})`), `${step.id}: completes on ${target}, which its description does not link`);
      } else if (kind === 'onContext') {
        assert.ok((Object.values(contextKeys) as string[]).includes(target), `${step.id}: completes on ${target}, which the extension never sets`);
      } else if (kind === 'onLink') {
        assert.ok(step.description.includes(`](${target})`), `${step.id}: completes on a link its description does not have`);
      }
    }
  }
});

void test('the walkthrough installs the guard hooks', () => {
  const steps = manifest.contributes.walkthroughs.flatMap((w) => w.steps);
  const hooks = steps.find((s) => s.description.includes(`](command:${commandIds.installHooks})`));
  assert.ok(hooks, 'no step links Install the Guard Hooks…');
  // Done once some folder has the hooks, not once the button ran: without a folder, or
  // cancelled at the preview, it writes nothing.
  assert.deepEqual(hooks.completionEvents, [`onContext:${contextKeys.hooksInstalled}`]);
});

void test('the walkthrough does not tell users to run agent-guard as if installing the extension put it on the PATH', () => {
  for (const step of manifest.contributes.walkthroughs.flatMap((w) => w.steps)) {
    const texts = [step.description, ...(step.media.markdown ? [readFileSync(path.join(repoRoot(), step.media.markdown), 'utf8')] : [])];
    for (const text of texts) {
      assert.doesNotMatch(text, /(^|[`\n]|&&)\s*agent-guard\s+(check|watch|repair|hooks)\b/m, step.id);
    }
  }
});

void test('configuration keys and defaults match the settings schema', () => {
  const props = manifest.contributes.configuration.properties;
  assert.deepEqual(Object.keys(props).sort(), settingKeys.map((k) => `${settingsPrefix}.${k}`).sort());
  for (const key of settingKeys) {
    assert.deepEqual(props[`${settingsPrefix}.${key}`]?.default, defaultSettings[key], key);
  }
});

interface EnumSetting {
  enum?: string[];
  enumDescriptions?: string[];
  markdownEnumDescriptions?: string[];
  default?: unknown;
  markdownDescription?: string;
}

void test('the rules setting offers every rule of the registry (and nothing else), each with the levels the engine knows and its default', () => {
  const rules = manifest.contributes.configuration.properties[`${settingsPrefix}.rules`] as { additionalProperties: unknown; properties: Record<string, EnumSetting> };
  // A rule id not in the registry has no effect: settings.json flags it instead of ignoring it.
  assert.equal(rules.additionalProperties, false);
  assert.deepEqual(Object.keys(rules.properties), allRules.map((r) => r.meta.id), 'package.json lists the rules of allRules, in its order');
  for (const r of allRules) {
    const p = rules.properties[r.meta.id]!;
    assert.deepEqual(p.enum, [...severities, 'off'], r.meta.id);
    assert.equal(p.default, r.meta.defaultSeverity, `${r.meta.id}: its default`);
    assert.ok(p.markdownDescription?.startsWith(r.meta.docs.description), `${r.meta.id}: its description is the rule's (${r.meta.docs.description})`);
    assert.ok(p.markdownDescription?.includes(`(${r.meta.docs.url})`), `${r.meta.id}: links its documentation`);
  }
});

void test('every setting with a fixed set of values says what each value does', () => {
  const props = manifest.contributes.configuration.properties as Record<string, EnumSetting & { properties?: Record<string, EnumSetting> }>;
  const enums = Object.entries(props).flatMap(([key, p]) => [[key, p] as const, ...Object.entries(p.properties ?? {}).map(([k, q]) => [`${key}.${k}`, q] as const)]).filter(([, p]) => p.enum);
  assert.ok(enums.some(([k]) => k === `${settingsPrefix}.guard.staleWrite`) && enums.some(([k]) => k === `${settingsPrefix}.editorGuard.mode`));
  for (const [key, p] of enums) {
    const described = p.markdownEnumDescriptions ?? p.enumDescriptions;
    assert.equal(described?.length, p.enum!.length, `${key}: one description per value`);
    assert.ok(described.every((d) => d.trim().length > 0), key);
  }
});

void test('every rule has documentation', () => {
  for (const r of allRules) {
    const doc = path.join(repoRoot(), 'docs', 'rules', `${r.meta.id}.md`);
    assert.ok(existsSync(doc), `docs/rules/${r.meta.id}.md`);
    assert.equal(r.meta.docs.url.endsWith(`docs/rules/${r.meta.id}.md`), true);
  }
});

void test('the extension is a workspace extension that activates lazily, and ships a CLI', () => {
  assert.deepEqual(manifest.extensionKind, ['workspace']);
  // (And when VS Code restores a session timeline, which it cannot do before the extension runs.)
  assert.deepEqual(manifest.activationEvents, ['onStartupFinished', `onWebviewPanel:${webviewPanelIds.timeline}`]);
  assert.equal(manifest.main, './dist/extension.js');
  assert.equal(manifest.bin['agent-guard'], 'dist/cli.js');
});

void test('with no folder open, the commands that need one are not in the palette and the view says to open one', () => {
  const m = manifest as unknown as {
    contributes: { menus: { commandPalette: { command: string; when: string }[]; 'view/title': { command: string; when: string }[] }; viewsWelcome: { when: string; contents: string }[] };
  };
  const palette = new Map(m.contributes.menus.commandPalette.map((i) => [i.command, i.when]));
  for (const id of [commandIds.recheck, commandIds.clear, commandIds.showTimeline, commandIds.repairSession, commandIds.installHooks, commandIds.uninstallHooks, commandIds.hooksStatus, commandIds.showWatchedFolders]) {
    const when = palette.get(id);
    assert.ok(when === 'false' || /workspaceFolderCount != 0/.test(when ?? ''), `${id}: ${when}`);
  }
  for (const item of m.contributes.menus['view/title']) {
    if (item.command !== commandIds.openSettings) {
      assert.match(item.when, /workspaceFolderCount != 0/, item.command);
    }
  }
  const noFolder = m.contributes.viewsWelcome.filter((w) => /workspaceFolderCount == 0/.test(w.when));
  assert.equal(noFolder.length, 1);
  assert.match(noFolder[0]!.contents, /\(command:vscode\.openFolder\)/);
  for (const w of m.contributes.viewsWelcome.filter((x) => x !== noFolder[0])) {
    assert.match(w.when, /workspaceFolderCount != 0/, `welcome "${w.contents.slice(0, 40)}…" shows only with a folder open`);
  }
});

void test('in Restricted Mode a workspace cannot weaken the guard or redirect it through its own settings', () => {
  const trust = (manifest as unknown as { capabilities: { untrustedWorkspaces: { supported: unknown; restrictedConfigurations?: string[] } } }).capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  const restricted = new Set(trust.restrictedConfigurations ?? []);
  // Free: they change only what is shown or when, never what the guard checks or allows.
  const free = new Set(['liveMinutes', 'stalledCallMinutes', 'problems.sessions']);
  for (const key of settingKeys) {
    assert.equal(restricted.has(`${settingsPrefix}.${key}`), !free.has(key), `${settingsPrefix}.${key}`);
  }
});

void test('the settings read per workspace folder are resource-scoped, and only those', () => {
  // Without "scope": "resource" a folder's own value of these is never read in a multi-root
  // workspace (and the Settings editor offers no folder tab for them).
  const props = manifest.contributes.configuration.properties;
  const resource = Object.entries(props).filter(([, p]) => p.scope === 'resource').map(([k]) => k).sort();
  assert.deepEqual(resource, [...folderSettings].map((k) => `${settingsPrefix}.${k}`).sort());
  for (const k of ['ignoredPaths', 'rules', 'watchWorkingTree', 'sessionFolders']) {
    assert.equal(props[`${settingsPrefix}.${k}`]?.scope, 'resource', k);
  }
});

void test('the one-click action on a finding in the sessions view opens the transcript at it; copying stays in the context menu', () => {
  const items = (manifest.contributes.menus['view/item/context'] ?? []) as { command: string; when: string; group?: string }[];
  const onFinding = items.filter((i) => /viewItem =~ \/\^finding\//.test(i.when));
  assert.deepEqual(onFinding.filter((i) => i.group === 'inline').map((i) => i.command), [commandIds.openFinding]);
  assert.ok(onFinding.some((i) => i.command === commandIds.copyFinding && i.group !== 'inline'), 'Copy Finding as JSON is in the context menu');
  assert.ok(onFinding.some((i) => i.command === commandIds.openFinding && i.group !== 'inline'), 'and so is Open Transcript at Finding');
});

void test('the rule documentation is packaged, so that "Show Rule Documentation" works offline', () => {
  // .vscodeignore is an allowlist: `**`, then `!pattern` for what ships (`npx vsce ls` lists it).
  const allow = readFileSync(path.join(repoRoot(), '.vscodeignore'), 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1).trim());
  assert.ok(allow.includes('docs/rules/*.md'), allow.join(', '));
  for (const r of allRules) {
    assert.ok(existsSync(path.join(repoRoot(), 'docs', 'rules', `${r.meta.id}.md`)), r.meta.id);
  }
  const onFinding = (manifest.contributes.menus['view/item/context'] ?? []).filter((i) => i.command === commandIds.openRuleDoc);
  assert.equal(onFinding.length, 1, 'in the context menu of a finding');
});
