"""Render the window offscreen in the light and the dark theme, and in Simplified Chinese (issues 18 and 20).

    make screenshots            # or: QT_QPA_PLATFORM=offscreen python packaging/screenshots.py [OUT_DIR]

Writes ``window-light.png``, ``window-dark.png`` and ``window-zh_CN.png``
(default folder: docs/screenshots) from throw-away data folders seeded with a
few lines and one conversation (Markdown, a code block, a tool card), so the
README's pictures are the real window of this checkout and stay current. The
Chinese picture is built after the translators are installed, as a real start
does, from a conversation written in Chinese. Nothing of the person's own data
folder is read or written.

Issue 30 adds the cards and the review: ``window-approval-write.png`` (a write_file on an existing file:
its path and diff), ``window-approval-command.png`` (a run_command: the command, its folder and network)
and ``window-changes.png`` (the Changes tab after that turn: the file list and the diff). They are real
turns of the real window against the scripted OpenAI-compatible test server
(``xworkmate.testing.openai_server``), sent from the composer and answered on the card as a person does.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from xworkmate.testing.screen import use_desktop_offscreen

use_desktop_offscreen()  # the window fits its screen (issue 30): a desktop-sized one, so pictures are 1440x900
os.environ.setdefault("QT_API", "pyside6")

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1440, 900)
SMALL = (900, 600)
"""Issue 30: every picture at 1440x900, and again at 900x600 (``window-<name>-900x600.png``)."""

ANSWER = """\
The failing test reads the config before the fixture writes it. Two changes fix it:

1. Write the file in `setup_config()` **before** the app starts.
2. Read it lazily, so a missing file is one clear error.

> The second change also keeps `load()` cheap when nothing is configured.

```python
def load(path: Path) -> Config:
    if not path.exists():
        raise ConfigError(f"no config at {path}")
    return Config.parse(path.read_text())
```

I ran the suite again: **42 passed**.
"""

ANSWER_ZH = """\
测试在 fixture 写入配置之前就读取了它。两处改动可以修好：

1. 在应用启动**之前**，由 `setup_config()` 写入配置文件。
2. 改为按需读取，文件缺失时给出一条清楚的错误。

> 第二处改动也让 `load()` 在没有配置时依然很快。

```python
def load(path: Path) -> Config:
    if not path.exists():
        raise ConfigError(f"no config at {path}")
    return Config.parse(path.read_text())
```

我重新跑了测试：**42 passed**。
"""

ENGLISH_TEXTS = {
    "lines": ("Release notes for 0.9", "Triage flaky CI job", "Fix the config loader test"),
    "question": "tests/test_config.py fails on a clean checkout. Can you find out why and fix it?",
    "answer": ANSWER,
}
CHINESE_TEXTS = {
    "lines": ("0.9 版本的发布说明", "排查不稳定的 CI 任务", "修复配置加载测试"),
    "question": "tests/test_config.py 在干净的检出上失败了。能查一下原因并修好吗？",
    "answer": ANSWER_ZH,
}


PROJECT = Path("projects", "demo")
"""The shown line's folder under the picture's home: the window shows it as ``~/projects/demo``."""


PROJECT_FILES = {
    "README.md": "# demo\n\nA config loader.\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.9.0"\n',
    "src/demo/config.py": "def load(path):\n    return path.read_text()\n",
    "tests/test_config.py": "from demo.config import load\n\n\ndef test_load(tmp_path):\n    assert load\n",
}


@contextmanager
def _screen_home() -> Iterator[Path]:
    """A throw-away data folder that is also ``$HOME`` while a picture is taken, with ``PROJECT`` in it: the
    pictures show ``~/projects/demo`` (the window shows folders under home as ``~/…``), never a random
    ``/tmp/xworkmate-screens-…`` path, and nothing of the person's own home is read or written."""
    before = os.environ.get("HOME")
    with tempfile.TemporaryDirectory(prefix="xworkmate-screens-") as folder:
        home = Path(folder).resolve()
        for name, text in PROJECT_FILES.items():  # a small project, so the Files tab is not empty
            (home / PROJECT / name).parent.mkdir(parents=True, exist_ok=True)
            (home / PROJECT / name).write_text(text, encoding="utf-8")
        os.environ["HOME"] = str(home)
        try:
            yield home
        finally:
            if before is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = before


def _seed(home: Path, texts: dict[str, Any] = ENGLISH_TEXTS) -> None:
    from xworkmate.controllers import SessionController
    from xworkmate.domain.messages import MessageRole, MessageSource
    from xworkmate.domain.providers import ProviderRecord
    from xworkmate.settings import Settings
    from xworkmate.store import open_store

    settings = Settings(home=home, database_url=None, workspace_root=home / "work")
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        controller.providers.add_provider(
            ProviderRecord(
                name="local", base_url="http://127.0.0.1:11434/v1", model="qwen2.5-coder-7b", is_default=True
            )
        )
        *others, title = texts["lines"]
        for other in others:
            controller.lines.create_line(title=other)
        line = controller.lines.create_line(title=title, workspace=home / PROJECT)
        messages = store.messages
        messages.append(
            line.thread_id,
            role=MessageRole.USER,
            source=MessageSource.HUMAN,
            content=texts["question"],
        )
        messages.append(
            line.thread_id,
            role=MessageRole.TOOL,
            source=MessageSource.TOOL,
            content="[exit code 1 after 1.4 s]\nFAILED tests/test_config.py::test_load - FileNotFoundError",
            payload={"name": "run_command", "arguments": {"command": "pytest -q tests/test_config.py"}, "ok": True},
        )
        messages.append(
            line.thread_id,
            role=MessageRole.ASSISTANT,
            source=MessageSource.AGENT,
            content=texts["answer"],
            payload={"tool_calls": [], "provider": "local", "model": "qwen2.5-coder-7b"},
        )
        from xworkmate.domain.agent_session import LineUsage

        store.agent_state.set_usage(  # the header's meter (issue 30 item 2)
            line.thread_id, LineUsage(context_used=5400, context_size=128000, tokens_in=1200, tokens_out=300)
        )
        controller.lines.switch_session(line.thread_id)
    finally:
        store.close()


def render(out_dir: Path) -> list[Path]:
    """Write the PNGs; returns light, dark, the approval cards and the Changes tab, and zh_CN (last)."""
    from PySide6.QtWidgets import QApplication

    from xworkmate.preferences import Language
    from xworkmate.ui.app import apply_resources
    from xworkmate.ui.i18n import install_translations, remove_translations
    from xworkmate.ui.resources import load_resources
    from xworkmate.ui.theme import ThemeMode, theme_manager

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    out_dir.mkdir(parents=True, exist_ok=True)
    apply_resources(app, load_resources())
    written: list[Path] = []
    try:
        install_translations(app, Language.ENGLISH)
        for mode in (ThemeMode.LIGHT, ThemeMode.DARK):
            written.append(_shoot(app, ENGLISH_TEXTS, mode, out_dir / f"window-{mode.value}.png"))
            _shoot(app, ENGLISH_TEXTS, mode, out_dir / f"window-{mode.value}-900x600.png", SMALL)
        written.extend(_shoot_turns(app, out_dir))  # issue 30: the approval cards and the Changes tab
        if install_translations(app, Language.CHINESE) is not Language.CHINESE:
            raise RuntimeError("no compiled Chinese catalogue: run `make translations` first")
        from PySide6.QtGui import QFontDatabase

        from xworkmate.ui.i18n import CJK_FAMILIES

        if not set(CJK_FAMILIES) & set(QFontDatabase.families()):  # the picture would show boxes, not Chinese
            print(
                "screenshots: no CJK font installed (apt install fonts-noto-cjk); do not commit window-zh_CN.png",
                file=sys.stderr,
            )
        written.append(_shoot(app, CHINESE_TEXTS, ThemeMode.LIGHT, out_dir / f"window-{Language.CHINESE.value}.png"))
        _shoot(app, CHINESE_TEXTS, ThemeMode.DARK, out_dir / f"window-{Language.CHINESE.value}-dark-900x600.png", SMALL)
    finally:
        remove_translations(app)
        theme_manager().set_mode(ThemeMode.SYSTEM)  # a caller that goes on gets the system's theme back
    return written


def _shoot(app: Any, texts: dict[str, Any], mode: Any, target: Path, size: tuple[int, int] = SIZE) -> Path:
    """One picture of a window built now (after the translators), over a fresh seeded data folder."""
    from xworkmate.controllers import SessionController
    from xworkmate.settings import Settings
    from xworkmate.store import open_store
    from xworkmate.ui.app import build_main_window

    with _screen_home() as home:
        _seed(home, texts)
        settings = Settings(home=home, database_url=None, workspace_root=home / "work")
        store = open_store(settings.effective_database_url)
        try:
            window = build_main_window(SessionController(store, settings))
            window.persist_ui_state = False
            window.resize(*size)
            window.show()
            window.chrome.theme_follower.choose(mode)
            for _ in range(10):
                app.processEvents()
            if not window.grab().save(str(target)):
                raise RuntimeError(f"could not write {target}")
            window.close()
            app.processEvents()
        finally:
            store.close()
    return target


NOTES_BEFORE = "# Config loader\n\n- reads the file at import\n- fails when it is missing\n- no tests yet\n"
NOTES_AFTER = (
    "# Config loader\n\n- reads the file lazily, in load()\n- a missing file is one clear ConfigError\n"
    "- no tests yet\n- setup_config() writes the file before the app starts\n"
)


def _shoot_turns(app: Any, out_dir: Path) -> list[Path]:
    """The approval cards and the Changes tab (issue 30), from real turns against the scripted test server."""
    import asyncio

    from PySide6.QtCore import QEvent, QModelIndex

    from xworkmate.controllers import SessionController
    from xworkmate.domain.providers import ProviderRecord
    from xworkmate.settings import Settings
    from xworkmate.store import open_store
    from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply
    from xworkmate.testing.qt_loop import TestEventLoop
    from xworkmate.ui.app import build_main_window
    from xworkmate.ui.theme import ThemeMode

    def call(name: str, **arguments: object) -> ScriptedToolCall:
        return ScriptedToolCall(id="c1", name=name, arguments=json.dumps(arguments))

    loop = TestEventLoop(app)
    asyncio.set_event_loop(loop)

    def wait(condition: Any, what: str, timeout: float = 20.0) -> None:
        async def poll() -> None:
            while not condition():
                await asyncio.sleep(0.02)

        try:
            loop.run_until_complete(asyncio.wait_for(poll(), timeout))
        except TimeoutError:
            raise RuntimeError(f"screenshots: timed out waiting for {what}") from None

    written: list[Path] = []
    with OpenAIServer(models=("qwen2.5-coder-7b",)) as server, _screen_home() as home:
        settings = Settings(home=home, database_url=None, workspace_root=home / "work")
        store = open_store(settings.effective_database_url)
        try:
            controller = SessionController(store, settings)
            controller.providers.add_provider(
                ProviderRecord(name="local", base_url=server.base_url, model="qwen2.5-coder-7b", is_default=True)
            )
            controller.lines.create_line(title="Release notes for 0.9")
            line = controller.lines.create_line(title="Fix the config loader test", workspace=home / PROJECT)
            notes = home / PROJECT / "NOTES.md"
            notes.write_text(NOTES_BEFORE)
            controller.lines.switch_session(line.thread_id)
            window = build_main_window(controller)
            window.persist_ui_state = False
            window.resize(*SIZE)
            window.show()
            window.chrome.theme_follower.choose(ThemeMode.LIGHT)
            area = window.message_pane.approval_area
            wait(lambda: window.shown_key == line.thread_id, "the line")

            def turn(words: str, *replies: Any) -> Any:
                server.script(*replies)
                window.composer.setPlainText(words)
                wait(window.send_button.isEnabled, "Send")
                window.send_button.click()
                wait(lambda: len(area.cards) == 1 and area.isVisible(), "the approval card")
                for _ in range(10):
                    app.processEvents()
                return area.cards[0]

            def finished() -> bool:
                return not controller.turns.is_running(line.thread_id) and window.operations.running == 0

            def save(name: str) -> None:
                target = out_dir / name
                if not window.grab().save(str(target)):
                    raise RuntimeError(f"could not write {target}")
                written.append(target)

            card = turn(
                "Update NOTES.md with what we changed in the loader",
                ToolCallReply([call("write_file", path="NOTES.md", content=NOTES_AFTER, quote="update NOTES.md")]),
                TextReply(["NOTES.md now says how the loader reads its file."]),
            )
            save("window-approval-write.png")
            card.approve_button.click()
            wait(finished, "the write turn")

            card = turn(
                "Run the config tests again",
                ToolCallReply([call("run_command", command="pytest -q tests/test_config.py")]),
                TextReply(["I did not run them: you rejected the command."]),
            )
            save("window-approval-command.png")
            card.reject_button.click()
            wait(finished, "the command turn")

            wait(lambda: bool(window.workspace.chip_turns), "the turn's files-changed chip")
            window.workspace.on_changes_chip_clicked(max(window.workspace.chip_turns))  # what a click on the chip does
            view = window.workspace.changes_view
            wait(lambda: not view.busy and view.file_model.rowCount() > 0, "the Changes tab")
            view.file_list.setCurrentIndex(view.file_model.index(0, 1, QModelIndex()))
            wait(lambda: not view.busy and bool(view.diff_view.patch), "the diff")
            for _ in range(10):
                app.processEvents()
            save("window-changes.png")
            window.close()
            window.deleteLater()  # now, while Qt runs: its workers' threads end with it, not at exit
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            app.processEvents()
        finally:
            store.close()
            asyncio.set_event_loop(None)
            loop.close()  # ends its executor's threads (Qt aborts at exit on a thread still running)
    return written


def problems(light: Path, dark: Path, chinese: Path | None = None) -> list[str]:
    """Why the screenshots are unusable (missing, empty, not images, or the same picture)."""
    from PySide6.QtGui import QImage

    found: list[str] = []
    paths = [light, dark] + ([chinese] if chinese is not None else [])
    images = []
    for path in paths:
        image = QImage(str(path))
        if not path.is_file() or path.stat().st_size == 0 or image.isNull() or image.width() < 100:
            found.append(f"{path} is missing or empty")
        images.append(image)
    if not found and images[0] == images[1]:
        found.append(f"{light.name} and {dark.name} are the same picture: the dark theme did not apply")
    if not found and chinese is not None and images[0] == images[2]:
        found.append(f"{light.name} and {chinese.name} are the same picture: the Chinese window did not render")
    return found


def main(argv: list[str]) -> int:
    out_dir = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "screenshots"
    light, dark, *others = render(out_dir)
    chinese = others[-1]
    found = problems(light, dark, chinese)
    for problem in found:
        print(f"screenshots: {problem}", file=sys.stderr)
    if not found:
        print(f"{light}\n{dark}\n{chinese}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv))
