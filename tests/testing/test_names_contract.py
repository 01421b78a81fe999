"""The stable-names contract (issue 21): every objectName docs/testing.md lists exists in the live window.

The table's "appears when" column says which situation to open first (a menu, an approval card, the
Providers dialog, a sign-in card); each situation is one test on its own window, built with the
plugin's fixtures and driven with WindowDriver. The "widget" column is checked too (``inherits``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")  # the Qt-free core job runs without the gui extra

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QAbstractButton

from tests.support.sandboxing import PG_PROXIED_PROBE, needs_bwrap

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "testing.md"
ROW = re.compile(r"^\| `(?P<name>[A-Za-z]+)` \| (?P<kind>Q\w+) \| [^|]+ \| (?P<when>[^|]+?) \|$")
LIVE_HEADING = "## Stable objectNames"
OUTSIDE_NOTE = "Names outside the offscreen window"


def documented() -> tuple[dict[str, list[tuple[str, str]]], list[str]]:
    """``{situation: [(name, widget class)]}`` for the live table, and the names outside the window."""
    text = DOC.read_text(encoding="utf-8")
    live_part, _, outside_part = text.partition(LIVE_HEADING)[2].partition(OUTSIDE_NOTE)
    live: dict[str, list[tuple[str, str]]] = {}
    for line in live_part.splitlines():
        match = ROW.match(line.strip())
        if match:
            live.setdefault(match["when"], []).append((match["name"], match["kind"]))
    outside = [m["name"] for m in map(ROW.match, (s.strip() for s in outside_part.splitlines())) if m]
    return live, outside


LIVE, OUTSIDE = documented()


def missing(window: Any, names: list[tuple[str, str]]) -> list[str]:
    problems = []
    for name, kind in names:
        found = window if window.objectName() == name else window.findChild(QObject, name)
        if found is None:
            problems.append(f"{name}: not found")
        elif not found.inherits(kind):
            problems.append(f"{name}: a {found.metaObject().className()}, documented as {kind}")
    return problems


def test_the_table_is_read_and_names_are_unique() -> None:
    names = [name for rows in LIVE.values() for name, _ in rows] + OUTSIDE
    assert len(names) > 90 and len(names) == len(set(names))
    situations = {"always", "line menu", "message menu", "hidden message menu", "approval", "sign-in", "providers"}
    situations.add("sign-in terminal")
    situations |= {f"approval, {case}" for case in APPROVAL_CASES} | {"after a refusal", "once the card is shown"}
    assert set(LIVE) == situations


def test_names_shown_always(xwm_window: Any) -> None:
    assert missing(xwm_window, LIVE["always"]) == []


def test_names_of_the_line_menu(xwm_window: Any) -> None:
    menu = xwm_window.task_list.task_line_menu("main")
    try:
        assert missing(xwm_window, LIVE["line menu"]) == []
    finally:
        menu.deleteLater()


def test_names_of_the_message_menu_shown_then_hidden(xwm_llm: Any, xwm_window: Any) -> None:
    driver = xwm_window.driver
    driver.new_line("Menus")
    xwm_llm.reply("An answer to hide.")
    driver.send("hello")
    driver.wait_idle()
    answer = xwm_window.controller.lines.messages(driver.current_key)[-1]
    menu = xwm_window.conversation.message_menu(answer.id)
    assert missing(xwm_window, LIVE["message menu"]) == []
    menu.findChild(QObject, "hideFromModelAction").trigger()
    menu.deleteLater()
    driver.settle()  # the change is stored by an operation on the store worker (issue 19)
    hidden_menu = xwm_window.conversation.message_menu(answer.id)
    try:
        assert missing(hidden_menu, LIVE["hidden message menu"]) == []
    finally:
        hidden_menu.deleteLater()


def test_names_of_an_approval_card(xwm_llm: Any, xwm_window: Any) -> None:
    driver = xwm_window.driver
    driver.new_line("Approval")
    xwm_llm.tool_call("write_file", path="a.txt", content="a\n", quote="write a.txt")
    xwm_llm.reply("Not written.")
    driver.send("please write a.txt")
    driver.wait_until(lambda: bool(driver.approval_cards()), what="the approval card")
    assert missing(xwm_window, LIVE["approval"]) == []
    driver.reject()
    driver.wait_idle()


# Issue 30 item 3: what a card shows depends on the call; each case is asked for as a person would meet it.
APPROVAL_CASES = ("existing file", "new file", "command", "when there is one", "after Details")


def _asks(xwm_llm: Any, driver: Any, case: str) -> None:
    folder = Path(driver.workspace_path or "")
    if case == "existing file":
        (folder / "a.txt").write_text("old\n")
        xwm_llm.tool_call("write_file", path="a.txt", content="new\n", quote="write a.txt")
    elif case == "command":
        xwm_llm.tool_call("run_command", command="echo hello", quote="run echo")
    elif case == "when there is one":  # a new file longer than a card shows: the note says how much is left
        xwm_llm.tool_call("write_file", path="long.txt", content="line\n" * 500, quote="write long.txt")
    else:
        xwm_llm.tool_call("write_file", path="a.txt", content="a\n", quote="write a.txt")
    xwm_llm.reply("Not done.")


@pytest.mark.parametrize("case", APPROVAL_CASES)
def test_names_of_each_kind_of_approval_card(xwm_llm: Any, xwm_window: Any, case: str) -> None:
    driver = xwm_window.driver
    driver.new_line(f"Approval {case}")
    _asks(xwm_llm, driver, case)
    driver.send("please do it")
    driver.wait_until(lambda: bool(driver.approval_cards()), what="the approval card")
    if case == "after Details":
        driver.click("approvalDetailsToggle")
    assert missing(xwm_window, LIVE[f"approval, {case}"]) == []
    driver.reject()
    driver.wait_idle()


@needs_bwrap
def test_names_shown_after_a_refused_host(xwm_llm: Any, xwm_window: Any) -> None:
    """SBX-4: the bar under the conversation and the buttons on the card of the command that was refused."""
    driver = xwm_window.driver
    driver.new_line("Refused")
    key, controller = driver.current_key, xwm_window.controller
    controller.line_settings.set_permission(key, "full")
    controller.line_settings.set_network(key, "allow-list")
    driver.settle()
    xwm_llm.tool_call("run_command", command=PG_PROXIED_PROBE)
    xwm_llm.reply("Done.")
    driver.send("reach the database")
    driver.wait_idle()
    driver.wait_until(lambda: xwm_window.findChild(QObject, "cardAllowHostButton") is not None, what="the card")
    assert missing(xwm_window, LIVE["after a refusal"]) == []
    assert missing(xwm_window, LIVE["once the card is shown"]) == []


def test_names_of_a_sign_in_card(xwm_acp_agent: Any, xwm_window: Any) -> None:
    methods = [  # with one method the window signs in by itself; two make it ask
        {"id": "oauth", "name": "Browser sign-in", "description": "opens a browser"},
        {"id": "api-key", "name": "API key", "description": "uses OPENAI_API_KEY"},
    ]
    xwm_acp_agent.script(auth_methods=methods, require_auth=True)
    driver = xwm_window.driver
    driver.new_line("Sign-in")
    driver.set_mode(f"{xwm_acp_agent.name} (ACP)")
    driver.send("hello agent")
    driver.wait_until(lambda: xwm_window.findChild(QObject, "signInCard") is not None, what="the sign-in card")
    assert missing(xwm_window, LIVE["sign-in"]) == []
    driver.click("signInCancelButton")
    driver.wait_idle()


def test_names_of_a_sign_in_terminal(xwm_acp_agent: Any, xwm_window: Any) -> None:
    """Issue 32 item 4: picking an ACP terminal method opens the sign-in terminal; Stop ends it."""
    methods = [
        {"id": "oauth", "name": "Browser sign-in"},
        {"id": "tui", "name": "Log in", "type": "terminal", "args": ["--login"]},
    ]
    login = {"file": str(xwm_acp_agent.report.parent / "login"), "token": "t0k"}
    xwm_acp_agent.script(auth_methods=methods, require_auth=True, login=login)
    driver = xwm_window.driver
    driver.new_line("Terminal sign-in")
    driver.set_mode(f"{xwm_acp_agent.name} (ACP)")
    driver.send("hello agent")
    driver.wait_until(lambda: xwm_window.findChild(QObject, "signInCard") is not None, what="the sign-in card")
    buttons = xwm_window.findChild(QObject, "signInCard").findChildren(QAbstractButton, "signInMethodButton")
    next(b for b in buttons if b.property("methodId") == "tui").click()
    driver.wait_until(lambda: xwm_window.findChild(QObject, "signInTerminal") is not None, what="the terminal")
    assert missing(xwm_window, LIVE["sign-in terminal"]) == []
    driver.click("signInTerminalStop")
    driver.wait_idle()


def test_names_of_the_providers_dialog(xwm_window: Any) -> None:
    xwm_window.findChild(QObject, "providerSettingsAction").trigger()
    dialog = xwm_window.line_settings.provider_dialog
    try:
        assert dialog is not None and dialog.isVisible()
        assert missing(xwm_window, LIVE["providers"]) == []
    finally:
        dialog.close()


@pytest.mark.parametrize("name", OUTSIDE)
def test_names_outside_the_offscreen_window_are_still_set_in_the_source(name: str) -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "xworkmate" / "ui").rglob("*.py"))
    assert f'setObjectName("{name}")' in sources


def test_the_driver_finds_buttons_by_these_names(xwm_window: Any) -> None:
    check: Callable[[str], Any] = xwm_window.driver.widget
    for name in ("newTaskLineButton", "sendButton", "stopButton", "changeFolderButton"):
        assert isinstance(check(name), QAbstractButton)
