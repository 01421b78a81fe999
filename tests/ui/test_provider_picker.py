"""The provider picker (issue 18, item 6): only the line's providers, the one that runs, the CLI's changes.

Pins: a ``medical`` line's picker offers only providers tagged ``medical``
(the router's rule) and "Default" names the provider that will run; a line
bound to a provider shows that provider; a provider and a line added by a
real ``xworkmate`` process appear in the open window within 2 s, on SQLite
and on PostgreSQL; an idle poll with no writes reports nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.settings import Settings

from .conftest import open_window
from .support import click_line


def _providers(controller: SessionController) -> None:
    controller.providers.add_provider(
        ProviderRecord(name="plain", base_url="http://127.0.0.1:9/v1", model="m-plain", is_default=True)
    )
    controller.providers.add_provider(
        ProviderRecord(name="med", base_url="http://127.0.0.1:9/v1", model="m-med", tags=frozenset({"medical"}))
    )


def test_a_category_line_offers_only_its_providers_and_names_the_one_that_runs(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    _providers(sqlite_controller)
    clinic = sqlite_controller.lines.create_line("Clinic")
    sqlite_controller.tasks.set_category(clinic.thread_id, "medical")
    normal = sqlite_controller.lines.create_line("Normal")
    window = open_window(qtbot, sqlite_controller)
    picker = window.provider_picker

    click_line(qtbot, window, clinic.thread_id)
    assert window.message_pane.provider_names() == ["med"]
    assert picker.itemText(0) == "Default — med"

    click_line(qtbot, window, normal.thread_id)
    assert window.message_pane.provider_names() == ["plain", "med"]
    assert picker.currentText() == "Default — plain"

    sqlite_controller.line_settings.set_execution(normal.thread_id, "native", "med")  # the line is bound to "med"
    qtbot.waitUntil(lambda: picker.currentText() == "med · m-med")


def _cli(settings: Settings, database_url: str, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update(XWORKMATE_HOME=str(settings.home), XWORKMATE_DATABASE_URL=database_url, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-m", "xworkmate", *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_the_window_notices_a_provider_and_a_line_the_cli_adds(
    qtbot: QtBot, controller: SessionController, settings: Settings, database_url: str
) -> None:
    """Both databases (``database_url``): a real second process writes; the window shows it within 2 s."""
    window = open_window(qtbot, controller)
    assert controller.external.poll().any is False  # idle: nothing to report
    assert window.message_pane.provider_names() == []

    started = time.monotonic()
    _cli(settings, database_url, "provider", "add", "cli-made", "--base-url", "http://127.0.0.1:9/v1", "--model", "x")
    written = time.monotonic()
    qtbot.waitUntil(lambda: window.message_pane.provider_names() == ["cli-made"], timeout=2500)
    assert time.monotonic() - written < 2.0, f"noticed after {time.monotonic() - written:.1f} s"
    assert not window.message_pane.provider_banner.isVisible()

    _cli(settings, database_url, "thread", "new", "--title", "Made by the CLI")
    qtbot.waitUntil(
        lambda: any(window.task_model.summary(k).title == "Made by the CLI" for k in window.task_model.line_keys()),
        timeout=2500,
    )
    assert time.monotonic() - started < 60


def test_an_idle_watcher_reports_nothing_and_sees_each_write_once(
    controller: SessionController, tmp_path: Path
) -> None:
    assert not controller.external.poll().any
    assert not controller.external.poll().any
    controller.providers.add_provider(ProviderRecord(name="p", base_url="http://127.0.0.1:9/v1", model="m"))
    change = controller.external.poll()
    assert change.providers and not change.threads
    assert not controller.external.poll().any
    controller.lines.create_line("New")
    change = controller.external.poll()
    assert change.threads and not change.providers


def test_a_provider_picked_in_the_window_is_the_lines_after_a_restart(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    """Issue 30: the pick was kept in the window's memory only; after a restart the picker said "Default"
    and `thread show --json` had provider null. It is the line's execution binding now."""
    _providers(sqlite_controller)
    line = sqlite_controller.lines.create_line("Pinned")
    other = sqlite_controller.lines.create_line("Other")
    window = open_window(qtbot, sqlite_controller)
    picker = window.provider_picker
    click_line(qtbot, window, line.thread_id)
    picker.setCurrentIndex(picker.findData("med"))
    qtbot.waitUntil(lambda: sqlite_controller.get_thread(line.thread_id).execution_binding.provider == "med")
    click_line(qtbot, window, other.thread_id)
    assert picker.currentText() == "Default — plain"  # each line its own pick
    click_line(qtbot, window, line.thread_id)
    assert picker.currentText() == "med · m-med"
    window.close()
    again = open_window(qtbot, sqlite_controller)
    click_line(qtbot, again, line.thread_id)
    assert again.provider_picker.currentText() == "med · m-med"
    again.provider_picker.setCurrentIndex(0)  # back to the default: the binding names none
    qtbot.waitUntil(lambda: sqlite_controller.get_thread(line.thread_id).execution_binding.provider is None)
