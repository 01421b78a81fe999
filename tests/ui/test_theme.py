"""Light and dark from one table of colour tokens (issue 18, item 2; STYLE "Hard-coded colours").

Pins: every (text, background) token pair the window draws text with reaches
WCAG AA (4.5:1) in both themes; no module of the ui package but theme.py,
and no rule of the stylesheet, writes a colour literal; the theme follows the
system's colour scheme, Settings → Theme overrides it and the choice is
remembered; the rendered status line, code blocks and pills take the dark
colours.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPalette, QTextFrameFormat, QTextTable
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

import xworkmate.ui
from xworkmate.controllers import SessionController
from xworkmate.ui import MainWindow, markdown_style
from xworkmate.ui.rendering import build_document, is_code_block
from xworkmate.ui.resources import load_resources
from xworkmate.ui.theme import (
    DARK,
    LIGHT,
    TEXT_PAIRS,
    THEME_STATE,
    TOKENS,
    ThemeMode,
    contrast_ratio,
    current,
    render_stylesheet,
    theme_manager,
)

from .conftest import open_window

UI_PACKAGE = Path(xworkmate.ui.__file__).resolve().parent
STYLESHEET = Path(xworkmate.ui.__file__).resolve().parents[2] / "resources" / "style.qss"
HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
COLOUR_CALLS = re.compile(
    r"QColor\(\s*(?:\d|[\"'])|QColor\.from(?:Rgb|Hsv|Hsl|String)|Qt\.GlobalColor|\brgba?\(|\bhsla?\("
    r"|Qt\.(?:red|green|blue|black|white|gray|darkGray|lightGray|yellow|cyan|magenta)\b"
)
NAMED_COLOUR = re.compile(r"\b(?:red|green|blue|black|white|gray|grey|orange|purple|yellow)\b")


@pytest.fixture
def restore_theme(qapp: QApplication) -> Iterator[None]:
    manager = theme_manager()
    system = qapp.styleHints().colorScheme()
    yield
    manager.on_system_scheme_changed(system)
    manager.set_mode(ThemeMode.SYSTEM)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_every_text_pair_reaches_wcag_aa(theme: object) -> None:
    assert theme in (LIGHT, DARK)
    failing = []
    for text, background in TEXT_PAIRS:
        ratio = contrast_ratio(theme.hex(text), theme.hex(background))  # type: ignore[attr-defined]
        if ratio < 4.5:
            failing.append(f"{text} on {background}: {ratio:.2f}:1")
    assert not failing, failing


def test_the_tokens_are_colours_and_the_pairs_name_them() -> None:
    for name, (light, dark) in TOKENS.items():
        assert re.fullmatch(r"#[0-9a-f]{6}", light) and re.fullmatch(r"#[0-9a-f]{6}", dark), name
    assert {name for pair in TEXT_PAIRS for name in pair} <= set(TOKENS)
    text_tokens = {name for name in TOKENS if name.endswith("-text") and name not in ("disabled-text",)}
    # Every text token is checked against some background (disabled text is exempt in WCAG).
    assert text_tokens <= {text for text, _ in TEXT_PAIRS}


def _string_literals(source: str) -> Iterator[tuple[int, str]]:
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            yield token.start[0], token.string


def test_no_colour_literal_in_the_ui_package_outside_theme_py() -> None:
    found: list[str] = []
    for path in sorted(UI_PACKAGE.rglob("*.py")):
        if path.name == "theme.py":
            continue
        source = path.read_text(encoding="utf-8")
        for number, line in enumerate(source.splitlines(), start=1):
            code = line.split("#", 1)[0] if not line.lstrip().startswith(("'", '"')) else line
            if COLOUR_CALLS.search(code):
                found.append(f"{path.name}:{number}: {line.strip()}")
        for number, literal in _string_literals(source):
            if HEX_COLOUR.search(literal) or re.search(r"color\s*:\s*[a-z]", literal, re.IGNORECASE):
                found.append(f"{path.name}:{number}: {literal[:80]}")
    assert not found, found


def test_the_stylesheet_names_tokens_only() -> None:
    text = re.sub(r"/\*.*?\*/", "", STYLESHEET.read_text(encoding="utf-8"), flags=re.DOTALL)
    values = re.findall(r":\s*([^;{}]+);", text)
    assert values  # the rules were read
    bad = [v for v in values if HEX_COLOUR.search(v) or COLOUR_CALLS.search(v) or NAMED_COLOUR.search(v)]
    assert not bad, bad
    assert "@danger-text" in text and "@warning-bg" in text
    for theme in (LIGHT, DARK):
        rendered = render_stylesheet(STYLESHEET.read_text(encoding="utf-8"), theme)
        assert "@" not in re.sub(r"/\*.*?\*/", "", rendered, flags=re.DOTALL)
        assert theme.hex("danger-text") in rendered


def test_the_theme_follows_the_system_and_settings_override_it(
    qtbot: QtBot, qapp: QApplication, sqlite_controller: SessionController, restore_theme: None
) -> None:
    window = open_window(qtbot, sqlite_controller)
    hints = qapp.styleHints()
    assert window.chrome.theme_follower.actions[ThemeMode.SYSTEM].isChecked()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the desktop switched to dark
    assert current() is DARK
    assert qapp.palette().color(QPalette.ColorRole.Window) == QColor(DARK.hex("window"))
    qtbot.waitUntil(lambda: window.palette().color(QPalette.ColorRole.Base) == QColor(DARK.hex("surface")))

    light = window.findChild(type(window.chrome.theme_follower.actions[ThemeMode.LIGHT]), "themeLightAction")
    assert light is not None and light.text() == "Light"
    light.trigger()  # Settings → Theme → Light, while the desktop stays dark
    assert current() is LIGHT
    assert sqlite_controller.lines.ui_state(THEME_STATE) == "light"
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert current() is LIGHT  # an override is not undone by the system

    window.chrome.theme_follower.actions[ThemeMode.DARK].trigger()
    window.close()
    again = open_window(qtbot, sqlite_controller)  # the next start reads the choice back
    assert again.chrome.theme_follower.actions[ThemeMode.DARK].isChecked()
    assert current() is DARK


def _contrast_of(image: QImage) -> float:
    """The contrast between a widget's background (its commonest colour) and the farthest pixel from it."""
    counts: Counter[str] = Counter()
    for y in range(image.height()):
        for x in range(image.width()):
            counts[image.pixelColor(x, y).name()] += 1
    background = counts.most_common(1)[0][0]
    return max(contrast_ratio(background, colour) for colour in counts)


def test_the_not_runnable_status_is_readable_in_the_dark(
    qtbot: QtBot, qapp: QApplication, sqlite_controller: SessionController, restore_theme: None
) -> None:
    """The issue: "Not runnable — …" was dark red on dark, 1.4:1."""
    theme_manager().set_template(load_resources().stylesheet)
    line = sqlite_controller.lines.create_line(title="Folder gone")
    Path(line.workspace_binding.path or "").rmdir()
    sqlite_controller.lines.switch_session(line.thread_id)
    window: MainWindow = open_window(qtbot, sqlite_controller)
    window.chrome.theme_follower.choose(ThemeMode.DARK)
    label = window.findChild(QLabel, "lineStatusLabel")
    assert label is not None
    qtbot.waitUntil(lambda: label.property("severity") == "blocked")
    assert label.text().startswith("Not runnable")
    label.style().unpolish(label)
    label.style().polish(label)
    image = label.grab().toImage()
    assert _contrast_of(image) >= 4.5
    counts = Counter(image.pixelColor(x, image.height() // 2).name() for x in range(image.width()))
    assert counts.most_common(1)[0][0] == DARK.hex("danger-bg")


def test_code_blocks_take_the_themes_colours(qapp: QApplication, restore_theme: None) -> None:
    manager = theme_manager()
    for mode, theme in ((ThemeMode.LIGHT, LIGHT), (ThemeMode.DARK, DARK)):
        manager.set_mode(mode)
        document = build_document("```python\ndef f():\n    return 1\n```", "markdown", qapp.font(), 400)
        block = document.begin()
        while block.isValid() and not is_code_block(block.blockFormat()):
            block = block.next()
        assert block.isValid()
        # Issue 30: the text is inset from a tinted box painted under it (padded, not flush).
        assert block.blockFormat().leftMargin() == markdown_style.CODE_PADDING
        found = markdown_style.decorations(document)
        box = found.headers[0].box
        assert box.contains(document.documentLayout().blockBoundingRect(block))
        image = QImage(400, int(box.bottom()) + 4, QImage.Format.Format_RGB32)
        image.fill(QColor(theme.hex("surface")))
        painter = QPainter(image)
        markdown_style.paint_underlay(painter, found)
        painter.end()
        inside = box.topLeft().toPoint() + QPoint(3, int(box.height() // 2))  # left of the inset text
        assert image.pixelColor(inside) == QColor(theme.hex("code-bg"))
        keyword = [r for r in block.layout().formats() if r.format.fontWeight() >= 600]
        assert keyword and keyword[0].format.foreground().color() == QColor(theme.hex("code-keyword-text"))


def test_tables_are_light_one_solid_hairline_with_a_tinted_header(qapp: QApplication, restore_theme: None) -> None:
    """Issue 30: Qt draws a Markdown table outset (a doubled 3-D border); the window draws one hairline."""
    manager = theme_manager()
    for mode, theme in ((ThemeMode.LIGHT, LIGHT), (ThemeMode.DARK, DARK)):
        manager.set_mode(mode)
        document = build_document("| a | b |\n|---|---|\n| 1 | 2 |\n", "markdown", qapp.font(), 400)
        tables = [f for f in document.rootFrame().childFrames() if isinstance(f, QTextTable)]
        assert len(tables) == 1
        fmt = tables[0].format().toTableFormat()
        assert fmt.borderStyle() == QTextFrameFormat.BorderStyle.BorderStyle_Solid
        assert fmt.border() == 1.0 and fmt.borderCollapse()
        assert fmt.borderBrush().color() == QColor(theme.hex("code-border"))
        assert tables[0].cellAt(0, 0).format().background().color() == QColor(theme.hex("surface-alt"))


def test_diff_lines_have_clear_backgrounds_from_the_tokens_in_both_themes(
    qtbot: QtBot, qapp: QApplication, restore_theme: None
) -> None:
    """Issue 30: the Changes tab's added and removed lines were a 10% tint of their text colour, faint in a
    screenshot; they are opaque tokens now, apart from the surface, their text still AA on them."""
    from xworkmate.ui.changes.diff_view import DiffView

    manager = theme_manager()
    patch = "--- a/n.md\n+++ b/n.md\n@@ -1,2 +1,2 @@\n context\n-old line\n+new line\n"
    for mode, theme in ((ThemeMode.LIGHT, LIGHT), (ThemeMode.DARK, DARK)):
        manager.set_mode(mode)
        for token in ("diff-added-bg", "diff-removed-bg"):
            assert contrast_ratio(theme.hex(token), theme.hex("surface")) >= 1.15, (mode, token)
        view = DiffView()
        qtbot.addWidget(view)
        view.resize(400, 200)
        view.set_patch(patch)
        view.show()
        qtbot.waitExposed(view)
        image = view.viewport().grab().toImage()
        if image.devicePixelRatio() != 1:
            image = image.scaled(view.viewport().size())
        for text, token in (("-old line", "diff-removed-bg"), ("+new line", "diff-added-bg")):
            block = view.document().findBlock(view.toPlainText().index(text))
            rect = view.blockBoundingGeometry(block).translated(view.contentOffset())
            far_right = QPoint(view.viewport().width() - 20, int(rect.center().y()))  # the whole line, not the text
            assert image.pixelColor(far_right).name() == theme.hex(token), (mode, token)
