#!/usr/bin/env bash
# Install the real ACP agent CLIs the tests drive, from npm, at pinned versions:
# OpenCode (opencode-ai, issue 12), Qwen Code (@qwen-code/qwen-code, issue 15) and codex-acp
# (@zed-industries/codex-acp, issue 32; it pulls the platform package with the native binary).
#
#   tests/support/install_agents.sh
#
# Installs into ${XWORKMATE_TEST_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xworkmate-tests/npm}
# (tests/support/opencode_agent.py, qwen_agent.py and codex_agent.py look in the same place). Idempotent: an agent
# whose pinned version is already there and runs is left alone; when both are, it says so and exits
# at once. When npm or the registry cannot be reached it prints why, records the reason in
# install-status (the tests then skip, naming it) and exits 0. Any other failure (a package installs
# but its binary does not run) exits non-zero.
set -euo pipefail

OPENCODE_VERSION="1.18.33"
QWEN_VERSION="0.24.4"
CODEX_ACP_VERSION="0.16.0"
DIR="${XWORKMATE_TEST_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xworkmate-tests/npm}"
STATUS="$DIR/install-status"

# name → package spec, launcher in node_modules/.bin
PACKAGES=("opencode-ai@$OPENCODE_VERSION" "@qwen-code/qwen-code@$QWEN_VERSION" "@zed-industries/codex-acp@$CODEX_ACP_VERSION")
LAUNCHERS=("opencode" "qwen" "codex-acp")
VERSIONS=("$OPENCODE_VERSION" "$QWEN_VERSION" "$CODEX_ACP_VERSION")

say() { printf 'install_agents: %s\n' "$*"; }

installed_version() { # launcher name
  local bin="$DIR/node_modules/.bin/$1"
  [ -x "$bin" ] || return 1
  if [ "$1" = "codex-acp" ]; then
    # codex-acp has no --version: its package's version, once its native binary runs (--help).
    timeout 60 "$bin" --help >/dev/null 2>&1 || return 1
    node -p 'require(process.argv[1]).version' "$DIR/node_modules/@zed-industries/codex-acp/package.json" 2>/dev/null
    return
  fi
  timeout 60 "$bin" --version 2>/dev/null | tail -n 1
}

all_installed() {
  printf 'installed: %s\n' "${PACKAGES[*]}" >"$STATUS"
}

unreachable() {
  say "${missing[*]} not installed: $1"
  mkdir -p "$DIR"
  printf 'unreachable: %s\n' "$1" >"$STATUS"
  exit 0
}

mkdir -p "$DIR"
exec 9>"$DIR/.install.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9 # two runs at once (parallel CI jobs) install once
fi

missing=()
for i in "${!PACKAGES[@]}"; do
  if [ "$(installed_version "${LAUNCHERS[$i]}" || true)" = "${VERSIONS[$i]}" ]; then
    say "${PACKAGES[$i]} already installed in $DIR"
  else
    missing+=("${PACKAGES[$i]}")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  all_installed
  exit 0
fi

command -v npm >/dev/null 2>&1 || unreachable "npm is not on PATH"
command -v node >/dev/null 2>&1 || unreachable "node is not on PATH"

# One quick look-up first, so an offline machine is told so in seconds rather than after npm's retries.
if ! timeout 90 npm view "${missing[0]}" version --fetch-retries=1 --fetch-timeout=30000 >/dev/null 2>&1; then
  unreachable "the npm registry ($(npm config get registry 2>/dev/null || echo '?')) cannot be reached"
fi

say "installing ${missing[*]} into $DIR"
if [ ! -f "$DIR/package.json" ]; then
  printf '{\n  "name": "xworkmate-test-agents",\n  "private": true\n}\n' >"$DIR/package.json"
fi
# OpenCode's postinstall links the platform binary (an optional dependency) into place; it is run
# by hand below when npm is set to skip install scripts.
if ! timeout 540 npm install --prefix "$DIR" --save-exact --no-audit --no-fund --loglevel=error "${missing[@]}"; then
  if ! timeout 60 npm ping >/dev/null 2>&1; then
    unreachable "npm install failed and the registry no longer answers"
  fi
  say "npm install of ${missing[*]} failed"
  exit 1
fi

if [ "$(installed_version opencode || true)" != "$OPENCODE_VERSION" ] && [ -d "$DIR/node_modules/opencode-ai" ]; then
  (cd "$DIR/node_modules/opencode-ai" && node ./postinstall.mjs) || true
fi
for i in "${!PACKAGES[@]}"; do
  got="$(installed_version "${LAUNCHERS[$i]}" || true)"
  if [ "$got" != "${VERSIONS[$i]}" ]; then
    say "${PACKAGES[$i]} installed but \`$DIR/node_modules/.bin/${LAUNCHERS[$i]}\` does not run or reports version '${got:-nothing}'"
    exit 1
  fi
  say "${LAUNCHERS[$i]} $got ready: $DIR/node_modules/.bin/${LAUNCHERS[$i]}"
done
all_installed
