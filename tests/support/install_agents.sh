#!/usr/bin/env bash
# Install the real ACP agent CLIs the tests drive (issue 12): OpenCode from npm, at a pinned version.
#
#   tests/support/install_agents.sh
#
# Installs into ${XWORKMATE_TEST_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xworkmate-tests/npm}
# (tests/support/opencode_agent.py looks in the same place). Idempotent: when the pinned version is
# already there and runs, it says so and exits at once. When npm or the registry cannot be reached it
# prints why, records the reason in install-status (the test then skips, naming it) and exits 0.
# Any other failure (the package installs but its binary does not run) exits non-zero.
set -euo pipefail

OPENCODE_VERSION="1.18.33"
DIR="${XWORKMATE_TEST_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xworkmate-tests/npm}"
BIN="$DIR/node_modules/.bin/opencode"
STATUS="$DIR/install-status"

say() { printf 'install_agents: %s\n' "$*"; }

installed_version() {
  [ -x "$BIN" ] || return 1
  timeout 60 "$BIN" --version 2>/dev/null | tail -n 1
}

unreachable() {
  say "opencode-ai@$OPENCODE_VERSION not installed: $1"
  mkdir -p "$DIR"
  printf 'unreachable: %s\n' "$1" >"$STATUS"
  exit 0
}

mkdir -p "$DIR"
exec 9>"$DIR/.install.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9 # two runs at once (parallel CI jobs) install once
fi

if [ "$(installed_version || true)" = "$OPENCODE_VERSION" ]; then
  printf 'installed: opencode-ai@%s\n' "$OPENCODE_VERSION" >"$STATUS"
  say "opencode-ai@$OPENCODE_VERSION already installed in $DIR"
  exit 0
fi

command -v npm >/dev/null 2>&1 || unreachable "npm is not on PATH"
command -v node >/dev/null 2>&1 || unreachable "node is not on PATH"

# One quick look-up first, so an offline machine is told so in seconds rather than after npm's retries.
if ! timeout 90 npm view "opencode-ai@$OPENCODE_VERSION" version --fetch-retries=1 --fetch-timeout=30000 >/dev/null 2>&1; then
  unreachable "the npm registry ($(npm config get registry 2>/dev/null || echo '?')) cannot be reached"
fi

say "installing opencode-ai@$OPENCODE_VERSION into $DIR"
if [ ! -f "$DIR/package.json" ]; then
  printf '{\n  "name": "xworkmate-test-agents",\n  "private": true\n}\n' >"$DIR/package.json"
fi
# The package's postinstall links the platform binary (an optional dependency) into place; it is run
# by hand below when npm is set to skip install scripts.
if ! timeout 540 npm install --prefix "$DIR" --save-exact --no-audit --no-fund --loglevel=error \
  "opencode-ai@$OPENCODE_VERSION"; then
  if ! timeout 60 npm ping >/dev/null 2>&1; then
    unreachable "npm install failed and the registry no longer answers"
  fi
  say "npm install of opencode-ai@$OPENCODE_VERSION failed"
  exit 1
fi

if [ "$(installed_version || true)" != "$OPENCODE_VERSION" ]; then
  (cd "$DIR/node_modules/opencode-ai" && node ./postinstall.mjs) || true
fi
got="$(installed_version || true)"
if [ "$got" != "$OPENCODE_VERSION" ]; then
  say "opencode-ai@$OPENCODE_VERSION installed but \`$BIN --version\` printed '${got:-nothing}'"
  exit 1
fi
printf 'installed: opencode-ai@%s\n' "$OPENCODE_VERSION" >"$STATUS"
say "opencode $got ready: $BIN"
