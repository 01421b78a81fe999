#!/usr/bin/env bash
# Issue 19: the CLI of a Qt-free install works, and `xworkmate gui` there is one line saying how to get the window.
set -euo pipefail
XWM="$1"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export XWORKMATE_HOME="$home"
unset XWORKMATE_DATABASE_URL XWORKMATE_WORKSPACE_ROOT
key="$("$XWM" thread new --title core --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["thread_id"])')"
"$XWM" thread show "$key" --json >/dev/null
"$XWM" doctor >/dev/null || true  # a fact may be missing (no keyring); it must not crash
set +e
err="$("$XWM" gui 2>&1 >/dev/null)"
code=$?
set -e
if [ "$code" -ne 1 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"xworkmate[gui]"* ]]; then
  echo "core_cli_check: 'xworkmate gui' without Qt gave exit $code and: $err" >&2
  exit 1
fi
echo "core_cli_check: the Qt-free CLI works; 'xworkmate gui' says: $err"
