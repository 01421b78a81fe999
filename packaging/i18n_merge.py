"""Fill and check the window's catalogues (issue 20); ``make i18n`` runs it between two lupdate passes.

    python packaging/i18n_merge.py fill resources/i18n/xworkmate_zh_CN.ts resources/i18n/fragments/*.ts
    python packaging/i18n_merge.py plurals resources/i18n/xworkmate_en.ts
    python packaging/i18n_merge.py check resources/i18n/xworkmate_zh_CN.ts resources/i18n/xworkmate_en.ts

``fill`` copies each fragment's finished translations into the catalogue's
entries with the same (context, source, comment): an unfinished entry takes the
fragment's text; a finished one that differs is kept and reported. Fragment
entries that the sources no longer have are reported too. ``plurals`` writes
the two English forms of a ``%n … (s)``/``(es)`` source ("%n file(s)" → "%n
file", "%n files"). ``check`` lists unfinished and obsolete entries and exits
1 when there are any. Plain Python: no Qt needed.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

Key = tuple[str, str, str]  # context, source, comment
UNFINISHED = "unfinished"
OBSOLETE = ("vanished", "obsolete")
_PLURAL_SUFFIX = re.compile(r"\((e?s)\)")


@dataclass(frozen=True)
class Entry:
    key: Key
    message: ET.Element

    @property
    def translation(self) -> ET.Element:
        found = self.message.find("translation")
        if found is None:
            found = ET.SubElement(self.message, "translation")
            found.set("type", UNFINISHED)
        return found

    @property
    def finished(self) -> bool:
        return self.translation.get("type") is None and all(_texts(self))

    @property
    def numerus(self) -> bool:
        return self.message.get("numerus") == "yes"


def entries(tree: ET.ElementTree) -> Iterator[Entry]:
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            key = (name, message.findtext("source") or "", message.findtext("comment") or "")
            yield Entry(key, message)


def read(path: Path) -> ET.ElementTree:
    return ET.parse(path)


def write(tree: ET.ElementTree, path: Path) -> None:
    """As lupdate writes it (declaration, doctype); lupdate's next pass settles the indentation."""
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n{body}\n', encoding="utf-8")


def _copy_translation(source: Entry, target: Entry) -> None:
    target.message.remove(target.translation)
    copied = ET.fromstring(ET.tostring(source.translation))
    copied.attrib.pop("type", None)
    copied.tail = None
    target.message.append(copied)


def _texts(entry: Entry) -> list[str]:
    translation = entry.translation
    return [form.text or "" for form in translation.findall("numerusform")] or [translation.text or ""]


def _same(a: Entry, b: Entry) -> bool:
    return _texts(a) == _texts(b)


def fill(catalogue: Path, fragments: Sequence[Path]) -> list[str]:
    """Copy the fragments' translations into ``catalogue``; returns what it noticed (conflicts, leftovers)."""
    tree = read(catalogue)
    targets = {entry.key: entry for entry in entries(tree)}
    notes: list[str] = []
    filled = 0
    for fragment in fragments:
        for entry in entries(read(fragment)):
            if not entry.finished:
                notes.append(f"{fragment.name}: untranslated {entry.key[0]}: {entry.key[1]!r}")
                continue
            target = targets.get(entry.key)
            if target is None:
                notes.append(f"{fragment.name}: not in the sources (any more): {entry.key[0]}: {entry.key[1]!r}")
            elif not target.finished:
                _copy_translation(entry, target)
                filled += 1
            elif not _same(entry, target):
                notes.append(f"{fragment.name}: kept the catalogue's translation of {entry.key[0]}: {entry.key[1]!r}")
    write(tree, catalogue)
    notes.append(f"{catalogue.name}: {filled} translation(s) filled from {len(fragments)} fragment(s)")
    return notes


def english_plurals(catalogue: Path) -> list[str]:
    """The singular and plural of each ``(s)``/``(es)`` numerus source; returns the sources it cannot form."""
    tree = read(catalogue)
    left: list[str] = []
    for entry in entries(tree):
        if not entry.numerus or entry.finished:
            continue
        source = entry.key[1]
        if not _PLURAL_SUFFIX.search(source):
            left.append(f"{catalogue.name}: write the English plural forms of {entry.key[0]}: {source!r}")
            continue
        translation = entry.translation
        translation.attrib.pop("type", None)
        for form in list(translation):
            translation.remove(form)
        translation.text = None
        for text in (_PLURAL_SUFFIX.sub("", source), _PLURAL_SUFFIX.sub(r"\1", source)):
            ET.SubElement(translation, "numerusform").text = text
    write(tree, catalogue)
    return left


def problems(catalogue: Path) -> list[str]:
    """Unfinished and obsolete entries of ``catalogue``."""
    found: list[str] = []
    for entry in entries(read(catalogue)):
        kind = entry.translation.get("type")
        if kind in OBSOLETE:
            found.append(f"{catalogue.name}: obsolete ({kind}) {entry.key[0]}: {entry.key[1]!r}")
        elif not entry.finished:
            found.append(f"{catalogue.name}: unfinished {entry.key[0]}: {entry.key[1]!r}")
    return found


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("fill", "plurals", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    command, paths = argv[0], [Path(arg) for arg in argv[1:]]
    if command == "fill":
        notes = fill(paths[0], paths[1:])
        print("\n".join(notes))
        return 0
    if command == "plurals":
        left = [note for path in paths for note in english_plurals(path)]
        print("\n".join(left) or "English plural forms: all written")
        return 0  # what is left stays unfinished, and `check` (and tests/test_translations.py) says so
    found = [problem for path in paths for problem in problems(path)]
    print("\n".join(found) or "catalogues complete")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
