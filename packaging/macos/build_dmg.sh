#!/usr/bin/env bash
# macOS build (STYLE 11): dist/XWorkmate.app from packaging/xworkmate.spec (its
# BUNDLE section holds the Info.plist keys), smoke-tested, then
# dist/XWorkmate-<version>-<arch>.dmg with hdiutil, mounted and smoke-tested again.
#
#   packaging/macos/build_dmg.sh      # on a Mac, with .venv created (make test)
#
# Optional: XWORKMATE_CODESIGN_IDENTITY="Developer ID Application: ..." signs
# the app (PyInstaller passes it to codesign); XWORKMATE_NOTARY_PROFILE=<keychain
# profile for `xcrun notarytool`> also notarizes and staples the .dmg. Without
# them the app is ad-hoc signed and Gatekeeper asks the person to allow it.
#
# Not run by the XWorkmate CI: it needs macOS (hdiutil, codesign).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
APP=$ROOT/dist/XWorkmate.app
build_start=$(date +%s)

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'build_dmg.sh: %s\n' "$*" >&2; exit 1; }

[[ $(uname -s) == Darwin ]] || fail "this script runs on macOS (it needs hdiutil); on Linux use packaging/build.sh"
[[ -x $PY ]] || fail "no .venv: run 'make test' first (python3 >= 3.11 from python.org or Homebrew)"
if ! "$PY" -c 'import PyInstaller' 2>/dev/null; then
  "$PY" -m pip install --quiet -e '.[build]'
fi
VERSION=$("$PY" -c 'import xworkmate; print(xworkmate.__version__)')
ARCH=$(uname -m)  # arm64 or x86_64: PyInstaller builds for the Python it runs on
DMG=$ROOT/dist/XWorkmate-${VERSION}-${ARCH}.dmg
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/xworkmate-dmg.XXXXXX")
MOUNT=$SCRATCH/mount
cleanup() {
  [[ -d $MOUNT ]] && hdiutil detach "$MOUNT" -quiet >/dev/null 2>&1 || true
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
mkdir -p "$SCRATCH/home"

run_clean() {
  env -i HOME="$SCRATCH/home" LANG=en_US.UTF-8 PATH=/usr/bin:/bin "$@"
}

# smoke_app APP: --version, the offscreen window, and a line through the bundled migrations.
smoke_app() {
  local app=$1 exe=$1/Contents/MacOS/xworkmate home out key
  "$PY" "$ROOT/packaging/check_bundle.py" "$app" --platform darwin
  out=$(run_clean "$exe" --version)
  [[ $out == "xworkmate $VERSION" ]] || fail "--version printed '$out'"
  home=$(mktemp -d "$SCRATCH/xwhome.XXXXXX")
  out=$(run_clean QT_QPA_PLATFORM=offscreen XWORKMATE_HOME="$home" "$exe" gui --smoke-test) || fail "smoke test failed: $out"
  [[ $out == ok ]] || fail "gui --smoke-test printed '$out', expected 'ok'"
  key=$(run_clean XWORKMATE_HOME="$home" "$exe" thread new --json \
    | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["session_key"])') || fail "thread new failed"
  run_clean XWORKMATE_HOME="$home" "$exe" thread list --json | grep -q "\"$key\"" || fail "thread list lacks $key"
  echo "  $app: --version, gui --smoke-test, thread new/list ok"
}

step "PyInstaller: dist/XWorkmate.app"
rm -rf "$APP" "$ROOT/dist/xworkmate" "$ROOT/build/pyinstaller"
QT_API=pyside6 "$PY" -m PyInstaller --noconfirm --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" "$ROOT/packaging/xworkmate.spec"
smoke_app "$APP"
if [[ -n ${XWORKMATE_CODESIGN_IDENTITY:-} ]]; then
  codesign --verify --deep --strict --verbose=2 "$APP"
fi

step "the .dmg: dist/$(basename "$DMG")"
STAGE=$SCRATCH/stage
mkdir -p "$STAGE"
ditto "$APP" "$STAGE/XWorkmate.app"  # ditto keeps the bundle's symlinks and signatures
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "XWorkmate $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"
hdiutil verify "$DMG"
if [[ -n ${XWORKMATE_NOTARY_PROFILE:-} ]]; then
  xcrun notarytool submit "$DMG" --keychain-profile "$XWORKMATE_NOTARY_PROFILE" --wait
  xcrun stapler staple "$DMG"
fi

step "checking the mounted .dmg"
mkdir -p "$MOUNT"
hdiutil attach "$DMG" -nobrowse -readonly -mountpoint "$MOUNT" -quiet
smoke_app "$MOUNT/XWorkmate.app"
hdiutil detach "$MOUNT" -quiet

step "done"
echo "  app: dist/XWorkmate.app  $(du -sh "$APP" | cut -f1)"
echo "  dmg: dist/$(basename "$DMG")  $(du -h "$DMG" | cut -f1)"
echo "  time: $(($(date +%s) - build_start))s"
