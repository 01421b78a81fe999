#!/usr/bin/env bash
# Linux build (STYLE 11): PyInstaller one-folder bundle -> smoke test of the
# frozen binary -> .deb with dpkg-deb -> the same checks on the extracted .deb.
#
#   packaging/build.sh            # from anywhere; needs .venv (make test / make run create it)
#
# Output: dist/xworkmate/ (the bundle) and dist/xworkmate_<version>_<arch>.deb.
# Optional: XWORKMATE_BUNDLE_PG_URL=postgresql://user@host/db also runs
# `thread new` / `thread list` from the bundle against that (scratch) database.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
BUNDLE=$ROOT/dist/xworkmate
STAGE_PARENT=$ROOT/build/deb
build_start=$(date +%s)

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }
elapsed() { echo $(($(date +%s) - $1)); }

[[ -x $PY ]] || fail "no .venv: run 'make test' (or 'make run') first; the Makefile creates it"
for tool in dpkg dpkg-deb; do
  command -v "$tool" >/dev/null || fail "$tool not found: the .deb step needs a Debian-family build machine"
done
if ! "$PY" -c 'import PyInstaller' 2>/dev/null; then
  step "installing the build extra (PyInstaller) into .venv"
  "$PY" -m pip install --quiet -e '.[build]'
fi

VERSION=$("$PY" -c 'import xworkmate; print(xworkmate.__version__)')
ARCH=$(dpkg --print-architecture)
DEB=$ROOT/dist/xworkmate_${VERSION}_${ARCH}.deb
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/xworkmate-build.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# The frozen app must run on its own: no venv on PATH, no VIRTUAL_ENV or
# PYTHONPATH, a throwaway HOME. LANG keeps Qt from warning about a C locale.
run_clean() {
  env -i HOME="$SCRATCH/home" LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin "$@"
}
mkdir -p "$SCRATCH/home"

# smoke_bundle DIR: the checks a person's first launch would otherwise do.
smoke_bundle() {
  local dir=$1 exe=$1/xworkmate home out err key
  "$PY" "$ROOT/packaging/check_bundle.py" "$dir"
  out=$(run_clean "$exe" --version)
  [[ $out == "xworkmate $VERSION" ]] || fail "$exe --version printed '$out', expected 'xworkmate $VERSION'"
  echo "  --version: $out"

  home=$(mktemp -d "$SCRATCH/xwhome.XXXXXX")
  out=$(run_clean QT_QPA_PLATFORM=offscreen XWORKMATE_HOME="$home" "$exe" gui --smoke-test) \
    || fail "$exe gui --smoke-test failed (output: '$out')"
  [[ $out == ok ]] || fail "$exe gui --smoke-test printed '$out', expected 'ok'"
  echo "  gui --smoke-test: $out"

  # Alembic reads the migrations from disk: creating and listing a line proves they are bundled.
  key=$(run_clean XWORKMATE_HOME="$home" "$exe" thread new --json --title "bundle check" \
    | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["session_key"])') \
    || fail "$exe thread new failed: are the migrations bundled?"
  run_clean XWORKMATE_HOME="$home" "$exe" thread list --json | "$PY" -c '
import json, sys
keys = [row["session_key"] for row in json.load(sys.stdin)]
sys.exit(None if {"main", sys.argv[1]} <= set(keys) else f"thread list shows {keys}, expected main and {sys.argv[1]}")
' "$key" || fail "$exe thread list does not show the new line"
  echo "  thread new + thread list: $key"

  # PostgreSQL: a refused connection proves SQLAlchemy's psycopg dialect, psycopg and libpq all load.
  if err=$(run_clean XWORKMATE_HOME="$home" XWORKMATE_DATABASE_URL=postgresql://xworkmate@127.0.0.1:1/none \
    "$exe" thread list 2>&1 >/dev/null); then
    fail "thread list against a closed PostgreSQL port succeeded?"
  fi
  if grep -qiE "no module|no pq wrapper|couldn't import|cannot use database URL" <<<"$err" \
    || ! grep -qiE "connection (refused|failed)|timeout expired" <<<"$err"; then
    fail "the bundle cannot load the PostgreSQL driver: $err"
  fi
  echo "  postgresql driver: loads (closed port refused as expected)"
  if [[ -n ${XWORKMATE_BUNDLE_PG_URL:-} ]]; then
    run_clean XWORKMATE_HOME="$home" XWORKMATE_DATABASE_URL="$XWORKMATE_BUNDLE_PG_URL" "$exe" thread new --title pg >/dev/null
    run_clean XWORKMATE_HOME="$home" XWORKMATE_DATABASE_URL="$XWORKMATE_BUNDLE_PG_URL" "$exe" thread list >/dev/null
    echo "  postgresql: thread new + list on \$XWORKMATE_BUNDLE_PG_URL"
  fi
}

step "catalogues: resources/i18n/*.qm (pyside6-lrelease)"
make -C "$ROOT" --no-print-directory translations

step "PyInstaller: dist/xworkmate (one-folder)"
t=$(date +%s)
rm -rf "$BUNDLE" "$ROOT/build/pyinstaller"
QT_API=pyside6 "$PY" -m PyInstaller --noconfirm --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" "$ROOT/packaging/xworkmate.spec"
pyinstaller_seconds=$(elapsed "$t")
echo "  PyInstaller took ${pyinstaller_seconds}s"

step "checking the bundle"
t=$(date +%s)
# Modules imported only at run time (by name, or from the migration scripts on disk) must be in the archive.
"$ROOT/.venv/bin/pyi-archive_viewer" -r -b "$BUNDLE/xworkmate" >"$SCRATCH/archive.txt"
for module in xworkmate.ui.app xworkmate.agents.native qasync alembic.context alembic.op alembic.ddl.sqlite \
  alembic.ddl.postgresql sqlalchemy.dialects.sqlite.pysqlite sqlalchemy.dialects.postgresql.psycopg psycopg \
  psycopg_binary keyring.backends.SecretService secretstorage jeepney ulid acp.client.connection; do
  grep -qxF " $module" "$SCRATCH/archive.txt" || fail "module $module is not in the bundle's archive (hidden import?)"
done
echo "  run-time imports present in the archive"
smoke_bundle "$BUNDLE"
smoke_seconds=$(elapsed "$t")

step "the .deb: dist/$(basename "$DEB")"
t=$(date +%s)
STAGE=$STAGE_PARENT/xworkmate_${VERSION}_${ARCH}
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
  "$STAGE/usr/share/doc/xworkmate"
cp -a "$BUNDLE" "$STAGE/opt/xworkmate"
# PyInstaller's bootloader finds _internal through /proc/self/exe, so a symlink works.
ln -s /opt/xworkmate/xworkmate "$STAGE/usr/bin/xworkmate"
install -m 0644 "$ROOT/packaging/linux/xworkmate.desktop" "$STAGE/usr/share/applications/xworkmate.desktop"
QT_QPA_PLATFORM=offscreen "$PY" "$ROOT/packaging/render_icons.py" --hicolor "$STAGE/usr/share/icons/hicolor" >/dev/null
cat >"$STAGE/usr/share/doc/xworkmate/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: XWorkmate

Files: *
License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0. /opt/xworkmate bundles Python, Qt
 (PySide6, LGPL-3.0) and Python packages under their own licenses.
EOF
chmod -R u+rwX,go+rX,go-w "$STAGE"

deps=$("$PY" "$ROOT/packaging/debian_depends.py" "$BUNDLE" --arch "$ARCH" 2>"$SCRATCH/depends.txt") \
  || { cat "$SCRATCH/depends.txt" >&2; fail "could not work out the package dependencies"; }
installed_kib=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
cat >"$STAGE/DEBIAN/control" <<EOF
Package: xworkmate
Version: $VERSION
Architecture: $ARCH
Maintainer: ${XWORKMATE_DEB_MAINTAINER:-XWorkmate Dev <dev@xworkmate.local>}
Installed-Size: $installed_kib
Section: devel
Priority: optional
$deps
Description: desktop workbench for AI agent tasks
 XWorkmate keeps several task lines side by side. Each line is a persisted
 thread with its own session key, working folder and conversation; an agent
 runs inside that folder when asked. Content categories decide which models
 may see a conversation.
 .
 This package installs a self-contained build (Python and Qt included) in
 /opt/xworkmate and the xworkmate command in /usr/bin.
EOF
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$STAGE/usr/share/applications/xworkmate.desktop"
fi
rm -f "$DEB"
dpkg-deb --build --root-owner-group "$STAGE" "$DEB" >/dev/null
deb_seconds=$(elapsed "$t")
echo "  dpkg-deb took ${deb_seconds}s"

step "checking the .deb"
t=$(date +%s)
info=$(dpkg-deb --info "$DEB")
for field in "Package: xworkmate" "Version: $VERSION" "Architecture: $ARCH" "Depends: " "Installed-Size: " \
  "Recommends: .*fonts-noto-cjk"; do
  grep -q "^ $field" <<<"$info" || fail "dpkg-deb --info lacks '$field'"
done
contents=$(dpkg-deb --contents "$DEB")
for path in ./opt/xworkmate/xworkmate ./opt/xworkmate/_internal/resources/style.qss \
  ./opt/xworkmate/_internal/resources/i18n/xworkmate_zh_CN.qm \
  ./opt/xworkmate/_internal/PySide6/Qt/translations/qtbase_zh_CN.qm \
  ./opt/xworkmate/_internal/xworkmate/store/migrations/env.py \
  "./usr/bin/xworkmate -> /opt/xworkmate/xworkmate" ./usr/share/applications/xworkmate.desktop \
  ./usr/share/icons/hicolor/48x48/apps/xworkmate.png ./usr/share/icons/hicolor/64x64/apps/xworkmate.png \
  ./usr/share/icons/hicolor/128x128/apps/xworkmate.png ./usr/share/icons/hicolor/256x256/apps/xworkmate.png; do
  grep -qF " $path" <<<"$contents" || fail "dpkg-deb --contents lacks $path"
done
grep -qE '^[^ ]+ root/root .* \./opt/xworkmate/xworkmate$' <<<"$contents" || fail "files in the .deb are not owned by root"
EXTRACT=$SCRATCH/extracted
dpkg-deb -x "$DEB" "$EXTRACT"
smoke_bundle "$EXTRACT/opt/xworkmate"
ln -s "$EXTRACT/opt/xworkmate/xworkmate" "$SCRATCH/xworkmate-link"
[[ $(run_clean "$SCRATCH/xworkmate-link" --version) == "xworkmate $VERSION" ]] \
  || fail "the bundle does not run through a symlink (as /usr/bin/xworkmate is)"
echo "  runs through a symlink, like /usr/bin/xworkmate"
# With apt lists present, let apt resolve Depends against the archive (nothing is installed).
if command -v apt-get >/dev/null && compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  apt-get install --simulate --no-install-recommends "$DEB" >"$SCRATCH/apt.txt" 2>&1 \
    || { cat "$SCRATCH/apt.txt" >&2; fail "apt cannot satisfy the .deb's Depends"; }
  echo "  apt-get --simulate: Depends resolve ($(grep -c '^Inst ' "$SCRATCH/apt.txt") package(s) would be installed)"
else
  echo "  apt-get --simulate: skipped (no apt lists; run apt-get update to check Depends)"
fi
deb_check_seconds=$(elapsed "$t")

step "done"
printf '%s\n' "$info" | sed -n '/Package:/,/Description:/p'
echo "  system libraries -> packages:"
cat "$SCRATCH/depends.txt"
echo
echo "  bundle: dist/xworkmate  $(du -sh "$BUNDLE" | cut -f1)  ($(find "$BUNDLE" -type f | wc -l) files)"
echo "  .deb:   dist/$(basename "$DEB")  $(du -h "$DEB" | cut -f1)  (installed: $((installed_kib / 1024)) MiB)"
echo "  time:   $(elapsed "$build_start")s total: PyInstaller ${pyinstaller_seconds}s, bundle checks ${smoke_seconds}s," \
  ".deb ${deb_seconds}s, .deb checks ${deb_check_seconds}s"
