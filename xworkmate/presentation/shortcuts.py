"""Every keyboard shortcut of the window in one registry (issue 33 item 3; LOOP-2's keyboard approvals).

A ``Shortcut`` is a key sequence (or several: the same action on each), the action's id (the ``objectName``
of the ``QAction`` or ``QShortcut`` that carries it), a translatable label and the context it works in. The
modules that make shortcuts (``ui/window/main_window``, ``ui/keyboard``, ``ui/layout``, ``ui/lines/needs_you``,
``ui/message_text``, ``ui/agent/approvals``) take their keys from here, and Help → Keyboard shortcuts
(``ui/settings/shortcuts_dialog``) lists this table; a UI test pins that every shortcut the window carries is here
and that no two share a key in one context. Keys are Qt's portable text (``QKeySequence.PortableText``).
No Qt here: the table is plain data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from xworkmate.presentation.text import QT_TRANSLATE_NOOP


class ShortcutContext(StrEnum):
    """Where the keys work: anywhere in the window, on a selected message, on a focused approval card."""

    WINDOW = QT_TRANSLATE_NOOP("Shortcuts", "Window")
    MESSAGE = QT_TRANSLATE_NOOP("Shortcuts", "Selected message")
    APPROVAL = QT_TRANSLATE_NOOP("Shortcuts", "Approval card")


@dataclass(frozen=True)
class Shortcut:
    action: str
    keys: tuple[str, ...]
    label: str
    """English; shown through ``translate("Shortcuts", …)``."""
    context: ShortcutContext = ShortcutContext.WINDOW


JUMP_COUNT = 9
"""Ctrl+1 … Ctrl+9: the first nine lines of the list."""

_W, _M, _A = ShortcutContext.WINDOW, ShortcutContext.MESSAGE, ShortcutContext.APPROVAL

SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("newTaskLineAction", ("Ctrl+N",), QT_TRANSLATE_NOOP("Shortcuts", "New task line")),
    Shortcut("searchAction", ("Ctrl+K",), QT_TRANSLATE_NOOP("Shortcuts", "Search lines")),
    Shortcut("filterShortcutAction", ("Ctrl+F", "Ctrl+L"), QT_TRANSLATE_NOOP("Shortcuts", "Filter task lines")),
    Shortcut(
        "jumpShortcut",
        tuple(f"Ctrl+{n}" for n in range(1, JUMP_COUNT + 1)),
        QT_TRANSLATE_NOOP("Shortcuts", "Open the line at that place in the list"),
    ),
    Shortcut("nextNeedingShortcut", ("Ctrl+J",), QT_TRANSLATE_NOOP("Shortcuts", "Next line that needs you")),
    Shortcut("sendShortcut", ("Ctrl+Return", "Ctrl+Enter"), QT_TRANSLATE_NOOP("Shortcuts", "Send")),
    Shortcut("stopShortcut", ("Esc",), QT_TRANSLATE_NOOP("Shortcuts", "Stop the running turn")),
    Shortcut("archiveShortcutAction", ("Ctrl+Shift+Backspace",), QT_TRANSLATE_NOOP("Shortcuts", "Archive task line")),
    Shortcut("toggleTaskPaneAction", ("Ctrl+B",), QT_TRANSLATE_NOOP("Shortcuts", "Show or hide the task lines")),
    Shortcut(
        "toggleWorkspacePaneAction", ("Ctrl+Alt+B",), QT_TRANSLATE_NOOP("Shortcuts", "Show or hide the workspace")
    ),
    Shortcut("settingsShortcutAction", ("Ctrl+,",), QT_TRANSLATE_NOOP("Shortcuts", "Settings")),
    Shortcut("shortcutsHelpAction", ("Ctrl+/",), QT_TRANSLATE_NOOP("Shortcuts", "Keyboard shortcuts")),
    Shortcut("quitAction", ("Ctrl+Q",), QT_TRANSLATE_NOOP("Shortcuts", "Quit")),
    Shortcut("copyMarkdown", ("Ctrl+Shift+C",), QT_TRANSLATE_NOOP("Shortcuts", "Copy as Markdown"), _M),
    Shortcut("approvalAllow", ("Y",), QT_TRANSLATE_NOOP("Shortcuts", "Allow once"), _A),
    Shortcut("approvalReject", ("N",), QT_TRANSLATE_NOOP("Shortcuts", "Reject"), _A),
    Shortcut("approvalAlways", ("A",), QT_TRANSLATE_NOOP("Shortcuts", "Always for this line"), _A),
)

BY_ACTION: Mapping[str, Shortcut] = MappingProxyType({s.action: s for s in SHORTCUTS})


def shortcut_keys(action: str) -> tuple[str, ...]:
    """The keys of one action (KeyError for an action the registry does not know: add it there)."""
    return BY_ACTION[action].keys


def clashes() -> list[tuple[ShortcutContext, str, str, str]]:
    """Keys two actions share in one context: ``(context, key, first action, second action)``; none expected."""
    seen: dict[tuple[ShortcutContext, str], str] = {}
    found: list[tuple[ShortcutContext, str, str, str]] = []
    for entry in SHORTCUTS:
        for key in entry.keys:
            first = seen.setdefault((entry.context, key.lower()), entry.action)
            if first != entry.action:
                found.append((entry.context, key, first, entry.action))
    return found
