"""Starting, smoke-testing, restarting and the menus (SPEC §1, §6, §8)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import xworkmate
from xworkmate.controllers import LineCreated, SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui import run_gui
from xworkmate.ui import start as ui_start
from xworkmate.ui.bridge import ControllerBridge
from xworkmate.ui.dialogs import about_text
from xworkmate.ui.resources import ResourceMissingError, find_resource_dir, load_resources
from xworkmate.ui.shell import GEOMETRY_STATE, SPLITTER_STATE
from xworkmate.ui.window.main_window import MainWindow

from .conftest import open_window
from .support import label_text, selected_key


@pytest.fixture
def restore_app_look(qapp: QApplication) -> Iterator[None]:
    """run_gui sets the application-wide icon and stylesheet; put them back for the other tests."""
    icon, stylesheet = qapp.windowIcon(), qapp.styleSheet()
    yield
    qapp.setWindowIcon(icon)
    qapp.setStyleSheet(stylesheet)


def test_smoke_test_builds_the_window_prints_ok_and_returns_0(
    qapp: QApplication,
    sqlite_controller: SessionController,
    capsys: pytest.CaptureFixture[str],
    restore_app_look: None,
) -> None:
    """SPEC §8 ``xworkmate gui --smoke-test``."""
    assert run_gui(sqlite_controller, smoke_test=True) == 0
    assert capsys.readouterr().out.strip() == "ok"
    assert not qapp.windowIcon().isNull()
    assert "#lineStatusLabel" in qapp.styleSheet()
    assert sqlite_controller.lines.ui_state(GEOMETRY_STATE) is None  # a check run leaves the saved layout alone


def test_smoke_test_fails_loudly_when_resources_are_missing(
    sqlite_controller: SessionController,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    restore_app_look: None,
) -> None:
    """A build without its resources must not pass its smoke test."""
    monkeypatch.setattr(ui_start, "load_resources", lambda: load_resources(find_resource_dir([tmp_path / "nowhere"])))
    assert run_gui(sqlite_controller, smoke_test=True) == 1
    err = capsys.readouterr().err
    assert "smoke test failed: resources not found" in err and str(tmp_path / "nowhere") in err


def test_resources_are_found_in_the_repository_and_a_missing_file_is_named(tmp_path: Path) -> None:
    folder = find_resource_dir()
    assert folder == Path(xworkmate.__file__).resolve().parent.parent / "resources"
    loaded = load_resources(folder)
    assert not loaded.icon.isNull() and loaded.stylesheet.strip()
    (tmp_path / "xworkmate.png").write_bytes(b"not a png")
    (tmp_path / "xworkmate.svg").write_text("<svg/>", encoding="utf-8")
    (tmp_path / "style.qss").write_text("QWidget {}", encoding="utf-8")
    shutil.copytree(folder / "icons", tmp_path / "icons")  # issue 30: the icon set is required too
    with pytest.raises(ResourceMissingError, match=r"xworkmate\.png is not a PNG"):
        load_resources(tmp_path)
    (tmp_path / "style.qss").unlink()
    with pytest.raises(ResourceMissingError, match=r"style\.qss"):
        load_resources(tmp_path)


def test_closing_and_reopening_restores_lines_current_line_geometry_and_splitter(
    qtbot: QtBot, settings: Settings
) -> None:
    """ISO-1: lines persist; the current key persists in the controller; the window layout in ui_state."""
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        window = open_window(qtbot, controller)
        first = controller.lines.create_line("First")
        second = controller.lines.create_line("Second")
        controller.lines.switch_session(first.thread_id)
        window.resize(780, 480)  # the offscreen screen is 800 wide; below 1000 the workspace hides (issue 18)
        window.splitter.setSizes([200, 380, 0])
        qtbot.waitUntil(lambda: window.size().width() == 780, timeout=2000)
        qtbot.wait(20)  # the splitter lays out again once the workspace pane has hidden
        sizes = window.splitter.sizes()
        geometry = window.geometry()
        window.close()
    finally:
        store.close()

    assert json.loads(_reopened_state(settings, SPLITTER_STATE)) == sizes
    assert base64.b64decode(_reopened_state(settings, GEOMETRY_STATE))

    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        window = open_window(qtbot, controller)
        assert window.task_model.line_keys() == ["main", first.thread_id, second.thread_id]
        assert controller.lines.current_key == first.thread_id
        assert label_text(window, "sessionKeyLabel") == first.thread_id
        assert selected_key(window) == first.thread_id
        assert window.geometry().size() == geometry.size()
        assert window.splitter.sizes() == sizes
        window.close()
    finally:
        store.close()


def _reopened_state(settings: Settings, name: str) -> str:
    store = open_store(settings.effective_database_url)
    try:
        value = SessionController(store, settings).lines.ui_state(name)
    finally:
        store.close()
    assert value is not None, f"{name} was not saved"
    return value


def test_about_names_the_version_data_folder_and_database(window: MainWindow, settings: Settings) -> None:
    text = about_text(window.controller)
    assert xworkmate.__version__ in text
    assert str(settings.home) in text
    assert window.controller.store_description in text
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus == ["&File", "&Settings", "&View", "&Help"]


def test_the_bridge_turns_controller_changes_into_one_signal(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    """STYLE lesson 4: one signal carries every change record; detach stops it."""
    bridge = ControllerBridge(sqlite_controller)
    with qtbot.waitSignal(bridge.changed, timeout=1000) as blocker:
        line = sqlite_controller.lines.create_line("Bridged")
    assert blocker.args == [LineCreated(key=line.thread_id)]
    bridge.detach()
    bridge.detach()
    received: list[object] = []
    bridge.changed.connect(received.append)
    sqlite_controller.lines.create_line("Unheard")
    assert received == []
    bridge.deleteLater()


_REAL_RUN = """
import asyncio, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui import run_gui

settings = Settings()
controller = SessionController(open_store(settings.effective_database_url), settings)
app = QApplication(sys.argv[:1])
seen = []

async def close_soon():
    await asyncio.sleep(0.05)  # an asyncio timer firing inside the GUI run: one shared loop
    seen.append("asyncio ran")
    app.closeAllWindows()

QTimer.singleShot(0, lambda: asyncio.ensure_future(close_soon()))
TURN_CODE = "xworkmate.controllers.runs"
print("turn code loaded at start:", TURN_CODE in sys.modules)
print("tool code loaded at start:", "xworkmate.agents.tools" in sys.modules)
code = run_gui(controller)
print("exit", code, seen)
print("turn code loaded by the warm-up:", hasattr(sys.modules.get(TURN_CODE), "TurnRunner"))
"""


def test_the_real_run_shares_one_asyncio_loop_with_qt_and_ends_when_the_window_closes(home: Path) -> None:
    """SPEC §1: qasync; closing the last window ends ``run_gui`` with 0 and saves the layout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "QT_API": "pyside6"})
    proc = subprocess.run(
        [sys.executable, "-c", _REAL_RUN], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "exit 0 ['asyncio ran']" in proc.stdout
    assert "Traceback" not in proc.stderr
    # Issue 7: the turn code is not loaded at start-up, and is loaded before the first Send needs it.
    assert "turn code loaded at start: False" in proc.stdout
    assert "tool code loaded at start: False" in proc.stdout  # issue 19, item 7: the agents package is lazy
    assert "turn code loaded by the warm-up: True" in proc.stdout
    settings = Settings(home=home)
    assert _reopened_state(settings, GEOMETRY_STATE)


@pytest.mark.parametrize("platform", [None, "xcb"])
def test_without_a_display_the_window_says_so_in_one_line_instead_of_aborting(home: Path, platform: str | None) -> None:
    """Issue 30: with neither DISPLAY nor WAYLAND_DISPLAY, Qt's xcb plugin aborts (SIGABRT) saying a library
    (xcb-cursor0) is needed although it is installed; the window's start says there is no display."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update({"XWORKMATE_HOME": str(home), "QT_API": "pyside6"})
    if platform is not None:
        env["QT_QPA_PLATFORM"] = platform
    proc = subprocess.run(
        [sys.executable, "-m", "xworkmate", "gui"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no display (DISPLAY and WAYLAND_DISPLAY are unset)" in proc.stderr
    assert not (home / "xworkmate.db").exists()  # nothing was opened


def test_a_size_saved_on_a_bigger_monitor_is_fitted_to_the_screen(qtbot: QtBot, settings: Settings) -> None:
    """Issue 30: a size saved on a bigger monitor is fitted to the screen the window opens on, frame
    included, and the window is put on it."""
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        window = open_window(qtbot, controller)
        area = window.screen().availableGeometry()
        window.setGeometry(area.left() + 500, area.top() + 300, area.width() + 480, area.height() + 320)
        window.close()
    finally:
        store.close()

    store = open_store(settings.effective_database_url)
    try:
        window = open_window(qtbot, SessionController(store, settings))
        area = window.screen().availableGeometry()

        def fits() -> bool:
            frame = window.frameGeometry()
            return frame.width() <= area.width() and frame.height() <= area.height()

        qtbot.waitUntil(fits)  # frame included, once it is known
        assert area.contains(window.geometry().topLeft()), window.geometry()
        window.close()
    finally:
        store.close()


_SCALED_START = """
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from xworkmate.ui.shell import WindowShell
shell = WindowShell()
shell.show()
for _ in range(5):
    app.processEvents()
area, frame = shell.screen().availableGeometry(), shell.frameGeometry()
print(json.dumps([area.width(), area.height(), frame.width(), frame.height()]))
"""


def test_at_a_scale_of_2_on_a_1440x900_screen_the_window_opens_whole(tmp_path: Path) -> None:
    """Issue 30: with QT_SCALE_FACTOR=2 on 1440x900 (720x450 logical) the default 1200x760 opened at
    2400x1520 pixels: the composer and Send were off-screen."""
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": 1440, "height": 900}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update(
        {"QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "QT_SCALE_FACTOR": "2", "XWORKMATE_HOME": str(tmp_path)}
    )
    done = subprocess.run(
        [sys.executable, "-c", _SCALED_START], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    area_width, area_height, width, height = json.loads(done.stdout.strip().splitlines()[-1])
    assert (area_width, area_height) == (720, 450)
    assert width <= area_width and height <= area_height, (width, height)
