"""Light and dark: one table of named colour tokens, and the theme the window shows (issue 18, item 2).

Every colour the window draws comes from ``TOKENS``: the application palette
(``palette_for``), the stylesheet (``resources/style.qss`` names tokens as
``@name``; ``render_stylesheet`` fills them in), Markdown and code
highlighting (``xworkmate.ui.rendering``), the conversation cards and the
task list's pills. No other module in the ui package writes a colour literal
(``tests/ui/test_theme.py`` greps for them).

``TEXT_PAIRS`` lists every (text, background) pair of tokens the window
draws text with; the same test checks each reaches WCAG AA (4.5:1) in both
themes.

``ThemeManager`` (one per application, ``theme_manager()``) follows the
system's colour scheme (``QStyleHints.colorScheme`` and its change signal)
unless Settings → Theme picks Light or Dark; the window persists that choice
in the controller's ui_state (``THEME_STATE``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from xworkmate.domain import ui_state
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

THEME_STATE = ui_state.THEME.name
"""The ui_state key holding the person's choice: ``system``, ``light`` or ``dark``."""


class Scheme(Enum):
    LIGHT = "light"
    DARK = "dark"


class ThemeMode(Enum):
    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


THEME_MODE_LABELS: dict[ThemeMode, str] = {
    ThemeMode.SYSTEM: QT_TRANSLATE_NOOP("ThemeFollower", "Follow the system"),
    ThemeMode.LIGHT: QT_TRANSLATE_NOOP("ThemeFollower", "Light"),
    ThemeMode.DARK: QT_TRANSLATE_NOOP("ThemeFollower", "Dark"),
}
"""English; the window shows ``QCoreApplication.translate("ThemeFollower", label)``."""

# name: (light, dark). Text tokens end in -text or are "text"/"link"/"placeholder"; see TEXT_PAIRS.
TOKENS: dict[str, tuple[str, str]] = {
    # the palette
    "window": ("#f3f4f6", "#1c1d20"),
    "surface": ("#ffffff", "#24262a"),
    "surface-alt": ("#f0f2f5", "#2c2f34"),
    "button": ("#e9ecf0", "#32353b"),
    "text": ("#1f2328", "#e6e7ea"),
    "muted-text": ("#575e66", "#a8aeb6"),
    "disabled-text": ("#8a9098", "#70767e"),
    "placeholder": ("#626870", "#959ca4"),
    "border": ("#c3c8d0", "#4a4f57"),
    "border-strong": ("#8a9098", "#6c727a"),
    "accent": ("#2160c4", "#5b9bff"),
    "accent-text": ("#ffffff", "#0d1117"),
    "link": ("#0b57d0", "#8ab4f8"),
    # status words
    "ok-text": ("#1b6e20", "#7ee08a"),
    "info-text": ("#1f5fc4", "#8ab4f8"),
    "danger-text": ("#a3211b", "#ff9a92"),
    "danger-bg": ("#fbe9e7", "#3b2424"),
    "danger-border": ("#d93025", "#ff6b60"),
    "warning-bg": ("#fdf0d2", "#3a3020"),
    # conversation cards
    "card-user": ("#eaf1fc", "#223048"),
    "card-user-border": ("#b9cff3", "#38507a"),
    "card-other": ("#f6f7f9", "#2a2c31"),
    "card-other-border": ("#d5d9df", "#3d4148"),
    "card-error": ("#fdf0d2", "#3a3020"),
    "card-error-border": ("#c98a10", "#a27a2a"),
    "tool-ok-accent": ("#2e7d32", "#66bb6a"),
    "tool-error-accent": ("#c62828", "#ef5350"),
    "approval-bg": ("#eef3fc", "#222d40"),
    "approval-border": ("#7fa3e6", "#4a6aa8"),
    # Markdown and code
    "code-bg": ("#eceef2", "#30333a"),
    "code-border": ("#d5d9df", "#454a52"),
    "quote-bar": ("#b9c0ca", "#5a616b"),
    "code-keyword-text": ("#7b2fa0", "#d7a6f2"),
    "code-number-text": ("#8a4500", "#f0a860"),
    "code-string-text": ("#1b6e20", "#8fd694"),
    "code-comment-text": ("#575e66", "#a0a7af"),
    "diff-added-text": ("#1b6e20", "#7ee08a"),
    "diff-removed-text": ("#a3211b", "#ff9a92"),
    "diff-hunk-text": ("#5b3fa3", "#b9a4f5"),
    # a diff's line backgrounds (the Changes tab, approval cards): opaque, clearly apart from the surface
    "diff-added-bg": ("#d8f0db", "#1e3d24"),
    "diff-removed-bg": ("#f9dcd9", "#4a2626"),
    "diff-hunk-bg": ("#e9e3f7", "#2f2945"),
    # task list pills
    "pill-danger-text": ("#a3211b", "#ffb0a8"),
    "pill-danger-bg": ("#fbe3e0", "#402626"),
    "pill-info-text": ("#1a56b8", "#9cc2ff"),
    "pill-info-bg": ("#e3ecfb", "#233450"),
    "pill-warning-text": ("#8a4b00", "#ffcc80"),
    "pill-warning-bg": ("#fdeccf", "#3d3020"),
    "pill-ok-text": ("#1b6e20", "#9be3a3"),
    "pill-ok-bg": ("#e2f3e3", "#243826"),
    "pill-neutral-text": ("#545a61", "#b9bec5"),
    "pill-neutral-bg": ("#eceef1", "#34373c"),
    "pill-category-text": ("#6f2f8f", "#e0b3f5"),
    "pill-category-bg": ("#f2e6f8", "#3a2a44"),
    "pill-kind-text": ("#45566a", "#b8c6d6"),
    "pill-kind-bg": ("#e6ebf0", "#2f3943"),
}

# Issue 30 item 1: the sizes every theme shares (pixels), named in the stylesheet as ``@name`` like the
# colours. Spacing is a 4/8/12/16/24 scale; the type scale is body, small and title; radii and elevations.
METRICS: dict[str, int] = {
    "space-1": 4,
    "space-2": 8,
    "space-3": 12,
    "space-4": 16,
    "space-5": 24,
    "font-small": 12,
    "font-body": 14,
    "font-title": 16,
    "radius-small": 4,
    "radius-medium": 8,
    "radius-large": 12,
    "focus-ring": 2,
}
"""Sizes in pixels; ``render_stylesheet`` writes them as ``<n>px``."""

TYPE_SCALE: dict[str, float] = {"small": 12 / 14, "body": 1.0, "title": 16 / 14, "heading-1": 1.25, "heading-2": 1.125}
"""Text sizes over the body's, for text sized from the body font (Markdown headings: at most ~1.3x)."""

ELEVATION: dict[str, str] = {"elevation-0": "window", "elevation-1": "surface", "elevation-2": "surface-alt"}
"""Which colour token a layer is painted with (``@elevation-<n>`` in the stylesheet): the window, what sits
on it (panes, the message list), what floats over that (tooltips, chips, popups). No shadows: a raised
layer is a lighter (light theme) or brighter (dark) surface with an ``@border`` hairline."""

ACCENT = "accent"
"""The one accent colour token: selection, focus rings, the primary button, links' hover."""

_CARDS = ("card-user", "card-other", "card-error")
_CODE_TEXT = ("code-keyword-text", "code-number-text", "code-string-text", "code-comment-text", "text")
_CARD_TEXT = (
    "text",
    "muted-text",
    "link",
    "ok-text",
    "info-text",
    "danger-text",
    "diff-added-text",
    "diff-removed-text",
    "diff-hunk-text",
)
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    *((text, background) for text in ("text", "muted-text", "link") for background in ("window", "surface")),
    ("text", "surface-alt"),
    ("muted-text", "surface-alt"),  # the session key's chip (issue 30)
    ("text", "button"),
    ("placeholder", "surface"),
    ("accent-text", "accent"),
    ("ok-text", "window"),
    ("info-text", "window"),
    ("danger-text", "window"),
    ("danger-text", "danger-bg"),
    ("text", "warning-bg"),
    ("link", "warning-bg"),
    ("text", "approval-bg"),
    *((text, card) for text in _CARD_TEXT for card in _CARDS),
    *((text, "code-bg") for text in _CODE_TEXT),
    ("text", "code-border"),
    ("diff-added-text", "diff-added-bg"),
    ("diff-removed-text", "diff-removed-bg"),
    ("diff-hunk-text", "diff-hunk-bg"),
    ("text", "diff-added-bg"),
    ("text", "diff-removed-bg"),
    ("muted-text", "code-bg"),
    ("pill-danger-text", "pill-danger-bg"),
    ("pill-info-text", "pill-info-bg"),
    ("pill-warning-text", "pill-warning-bg"),
    ("pill-ok-text", "pill-ok-bg"),
    ("pill-neutral-text", "pill-neutral-bg"),
    ("pill-category-text", "pill-category-bg"),
    ("pill-kind-text", "pill-kind-bg"),
)
"""Every (text token, background token) the window draws text with (WCAG AA: 4.5:1 in both themes)."""


@dataclass(frozen=True)
class Theme:
    scheme: Scheme
    _colours: dict[str, QColor] = field(default_factory=dict, compare=False, repr=False)

    @property
    def dark(self) -> bool:
        return self.scheme is Scheme.DARK

    def hex(self, name: str) -> str:
        """The token's colour as ``#rrggbb`` (KeyError for an unknown name)."""
        light, dark = TOKENS[name]
        return dark if self.dark else light

    def color(self, name: str) -> QColor:
        """The token's colour (one QColor per token, made once; copy it before changing it)."""
        colour = self._colours.get(name)
        if colour is None:
            colour = QColor(self.hex(name))
            self._colours[name] = colour
        return colour


LIGHT = Theme(Scheme.LIGHT)
DARK = Theme(Scheme.DARK)
_THEMES = {Scheme.LIGHT: LIGHT, Scheme.DARK: DARK}
_current: list[Theme] = [LIGHT]


def theme_for(scheme: Scheme) -> Theme:
    return _THEMES[scheme]


def current() -> Theme:
    """The theme the window shows now (light until a ``ThemeManager`` applies another)."""
    return _current[0]


def relative_luminance(colour: str) -> float:
    """WCAG 2.x relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def palette_for(theme: Theme) -> QPalette:
    """The application palette, from the tokens (so Qt's own widgets follow the theme too)."""
    roles = QPalette.ColorRole
    palette = QPalette()
    for role, name in (
        (roles.Window, "window"),
        (roles.WindowText, "text"),
        (roles.Base, "surface"),
        (roles.AlternateBase, "surface-alt"),
        (roles.ToolTipBase, "surface"),
        (roles.ToolTipText, "text"),
        (roles.PlaceholderText, "placeholder"),
        (roles.Text, "text"),
        (roles.Button, "button"),
        (roles.ButtonText, "text"),
        (roles.BrightText, "danger-text"),
        (roles.Highlight, "accent"),
        (roles.HighlightedText, "accent-text"),
        (roles.Link, "link"),
        (roles.LinkVisited, "link"),
        (roles.Light, "surface"),
        (roles.Midlight, "surface-alt"),
        (roles.Mid, "border"),
        (roles.Dark, "border-strong"),
        (roles.Shadow, "border-strong"),
    ):
        palette.setColor(role, theme.color(name))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(disabled, role, theme.color("disabled-text"))
    return palette


_TOKEN_REFERENCE = re.compile(r"@([a-z][a-z0-9-]*)")


def render_stylesheet(template: str, theme: Theme) -> str:
    """``template`` with every ``@token`` replaced by its colour, or its size (``METRICS``) in pixels
    (KeyError naming an unknown token). Both themes fill the same template from the same tokens."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in METRICS:
            return f"{METRICS[name]}px"
        return theme.hex(ELEVATION.get(name, name))

    return _TOKEN_REFERENCE.sub(value, template)


def stylesheet_tokens(template: str) -> set[str]:
    """The token names ``template`` refers to."""
    return set(_TOKEN_REFERENCE.findall(template))


def resolve(mode: ThemeMode, system: Qt.ColorScheme) -> Scheme:
    """The scheme shown for the person's choice and the system's scheme (Unknown reads as light)."""
    if mode is ThemeMode.LIGHT:
        return Scheme.LIGHT
    if mode is ThemeMode.DARK:
        return Scheme.DARK
    return Scheme.DARK if system == Qt.ColorScheme.Dark else Scheme.LIGHT


def parse_mode(raw: str | None) -> ThemeMode:
    try:
        return ThemeMode(raw or ThemeMode.SYSTEM.value)
    except ValueError:
        return ThemeMode.SYSTEM


class ThemeManager(QObject):
    """The application's theme: the person's choice over the system's colour scheme.

    Signals: ``changed(Theme)`` after a different theme was applied (palette,
    stylesheet and ``current()`` already switched); views that cache rendered
    rows drop them then.
    """

    changed = Signal(object)

    def __init__(self, app: QGuiApplication) -> None:
        super().__init__(app)
        self.setObjectName("themeManager")
        self._app = app
        self._mode = ThemeMode.SYSTEM
        self._template: str | None = None
        self._system = app.styleHints().colorScheme()
        self._applied: tuple[Scheme, str | None] | None = None
        app.styleHints().colorSchemeChanged.connect(self.on_system_scheme_changed)

    @property
    def mode(self) -> ThemeMode:
        return self._mode

    @property
    def theme(self) -> Theme:
        return theme_for(resolve(self._mode, self._system))

    def set_mode(self, mode: ThemeMode) -> None:
        self._mode = mode
        self.apply()

    def set_template(self, template: str) -> None:
        """The stylesheet with ``@token`` references (``resources/style.qss``)."""
        self._template = template
        self.apply()

    @Slot(Qt.ColorScheme)
    def on_system_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        self._system = scheme
        self.apply()

    def apply(self) -> None:
        """Put the resolved theme on the application, if it is not there already."""
        theme = self.theme
        if self._applied == (theme.scheme, self._template):
            return
        changed = theme is not current()
        self._applied = (theme.scheme, self._template)
        _current[0] = theme
        self._app.setPalette(palette_for(theme))
        set_style_sheet = getattr(self._app, "setStyleSheet", None)  # a QApplication's; not a QGuiApplication's
        if self._template is not None and set_style_sheet is not None:
            set_style_sheet(render_stylesheet(self._template, theme))
        if changed:
            self.changed.emit(theme)


def theme_manager() -> ThemeManager:
    """The application's one ``ThemeManager`` (made on first use)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        raise RuntimeError("the theme needs a QGuiApplication")
    found = app.findChild(ThemeManager, "themeManager")
    return found if isinstance(found, ThemeManager) else ThemeManager(app)
