"""The window's catalogues (issue 20): complete, current, and faithful to seed 000 where the core speaks.

The catalogue checks read the committed ``.ts`` files as XML (no Qt). The
currency check runs ``pyside6-lupdate`` over today's sources into a copy of
the Chinese catalogue: a text someone wrapped in ``tr()`` but did not
translate shows up there as a new unfinished entry. It is skipped only where
PySide6 (and so lupdate) is not installed, as in the Qt-free core venv.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from string import Formatter

import pytest

import xworkmate.domain.threads  # noqa: F401  (its status texts are marked on import)
from xworkmate.domain.categories import (
    ACP_CATEGORY_REFUSAL,
    NO_OWN_CATEGORY_REFUSAL,
    NORMAL_TASK_REMINDER,
    OTHER_CATEGORY_REFUSAL,
    UNTAGGED_MODEL_REFUSAL,
    normal_task_reminder,
)
from xworkmate.domain.translatable import marked_texts

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "resources" / "i18n"
CHINESE = I18N / "xworkmate_zh_CN.ts"
ENGLISH = I18N / "xworkmate_en.ts"
sys.path.insert(0, str(ROOT / "packaging"))
import i18n_merge  # noqa: E402

# The seed's own words (../shared/seeds/000_*.txt), which the Chinese of the core's texts must carry.
SEED_WORDS = {
    NORMAL_TASK_REMINDER: (
        "这是普通任务",
        "goal / context 里不要带本类别",
        "的内容",
        "要派与本类别相关的活",
        "传 category",
    ),
    NO_OWN_CATEGORY_REFUSAL: ("省略", "即派普通任务"),
    OTHER_CATEGORY_REFUSAL: ("不是本线程的类别", "即派普通任务"),
    UNTAGGED_MODEL_REFUSAL: ("标签", "组里第一个"),
    ACP_CATEGORY_REFUSAL: ("不经过", "CLI"),
}


def _lupdate() -> Path | None:
    found = Path(sys.executable).with_name("pyside6-lupdate")
    return found if found.is_file() else (Path(p) if (p := shutil.which("pyside6-lupdate")) else None)


def _translations(path: Path) -> dict[tuple[str, str], str]:
    tree = i18n_merge.read(path)
    return {(e.key[0], e.key[1]): e.translation.text or "" for e in i18n_merge.entries(tree)}


@pytest.mark.parametrize("catalogue", [CHINESE, ENGLISH], ids=lambda p: p.name)
def test_the_catalogue_has_no_unfinished_or_obsolete_entry(catalogue: Path) -> None:
    assert catalogue.is_file(), f"{catalogue} is missing: run `make i18n`"
    assert i18n_merge.problems(catalogue) == []


@pytest.mark.qt  # pyside6-lupdate comes with the gui extra
def test_lupdate_over_todays_sources_finds_no_text_the_catalogue_lacks(tmp_path: Path) -> None:
    lupdate = _lupdate()
    if lupdate is None:
        pytest.skip("pyside6-lupdate is not installed here (the Qt-free core venv)")
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "xworkmate").rglob("*.py"))
    for catalogue in (CHINESE, ENGLISH):
        copy = tmp_path / catalogue.name
        shutil.copy(catalogue, copy)
        extra = ["-pluralonly"] if catalogue is ENGLISH else []
        command = [str(lupdate), *sources, "-locations", "none", "-no-obsolete", *extra, "-ts", str(copy)]
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)
        before = {e.key for e in i18n_merge.entries(i18n_merge.read(catalogue))}
        after = {e.key for e in i18n_merge.entries(i18n_merge.read(copy))}
        new = sorted(f"{context}: {source!r}" for context, source, _ in after - before)
        gone = sorted(f"{context}: {source!r}" for context, source, _ in before - after)
        assert not new, f"{catalogue.name} lacks texts the sources have (run `make i18n` and translate): {new}"
        assert not gone, f"{catalogue.name} has texts the sources no longer have (run `make i18n`): {gone}"


def test_every_text_the_core_marks_is_translated_with_its_fields() -> None:
    """The window re-renders a core text from its translation: the same named fields must be in it."""
    assert len(marked_texts()) >= 12  # the seed's texts (categories) and the status reasons (threads)
    translations = _translations(CHINESE)
    for source, context in marked_texts().items():
        translated = translations.get((context, source))
        assert translated, f"no Chinese for {context}: {source!r}"
        assert _fields(translated) == _fields(source), (source, translated)


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in Formatter().parse(template) if field is not None}


def test_the_seed_000_texts_read_as_the_seed_says_them() -> None:
    """Issue 20, item 6 (CAT-5, CAT-6, CAT-9): the reminder and the refusals in the seed's words."""
    translations = _translations(CHINESE)
    for source, words in SEED_WORDS.items():
        translated = translations[("CoreText", source)]
        missing = [word for word in words if word not in translated]
        assert not missing, f"{translated!r} lacks the seed's {missing}"


def test_the_cli_and_the_model_keep_the_english_text() -> None:
    """Issue 20, item 5: the marker returns the text unchanged; only the window translates."""
    assert normal_task_reminder("medical", None) == (
        "Reminder: this is a normal task. Keep this conversation's 'medical' content out of its goal and context;"
        ' to dispatch work related to \'medical\', pass "category": "medical".'
    )
