"""Render the window offscreen in the light and the dark theme (issue 18, item 9).

    make screenshots            # or: QT_QPA_PLATFORM=offscreen python packaging/screenshots.py [OUT_DIR]

Writes ``window-light.png`` and ``window-dark.png`` (default folder:
docs/screenshots) from a throw-away data folder seeded with a few lines and
one conversation (Markdown, a code block, a tool card), so the README's
pictures are the real window of this checkout and stay current. Nothing of
the person's own data folder is read or written.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 800)

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


def _seed(home: Path) -> None:
    from xworkmate.controllers import SessionController
    from xworkmate.domain.messages import MessageRole, MessageSource
    from xworkmate.domain.providers import ProviderRecord
    from xworkmate.settings import Settings
    from xworkmate.store import open_store

    settings = Settings(home=home, database_url=None, workspace_root=home / "work")
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        controller.add_provider(
            ProviderRecord(
                name="local", base_url="http://127.0.0.1:11434/v1", model="qwen2.5-coder-7b", is_default=True
            )
        )
        controller.create_line(title="Release notes for 0.9")
        controller.create_line(title="Triage flaky CI job")
        line = controller.create_line(title="Fix the config loader test")
        messages = store.messages
        messages.append(
            line.thread_id,
            role=MessageRole.USER,
            source=MessageSource.HUMAN,
            content="tests/test_config.py fails on a clean checkout. Can you find out why and fix it?",
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
            content=ANSWER,
            payload={"tool_calls": [], "provider": "local", "model": "qwen2.5-coder-7b"},
        )
        controller.switch_session(line.thread_id)
    finally:
        store.close()


def render(out_dir: Path) -> list[Path]:
    """Write the two PNGs; returns their paths."""
    from PySide6.QtWidgets import QApplication

    from xworkmate.controllers import SessionController
    from xworkmate.settings import Settings
    from xworkmate.store import open_store
    from xworkmate.ui.app import apply_resources, build_main_window
    from xworkmate.ui.resources import load_resources
    from xworkmate.ui.theme import ThemeMode, theme_manager

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="xworkmate-screens-") as folder:
        home = Path(folder)
        _seed(home)
        settings = Settings(home=home, database_url=None, workspace_root=home / "work")
        store = open_store(settings.effective_database_url)
        try:
            controller = SessionController(store, settings)
            apply_resources(app, load_resources())
            window = build_main_window(controller)
            window.persist_ui_state = False
            window.resize(*SIZE)
            window.show()
            for mode in (ThemeMode.LIGHT, ThemeMode.DARK):
                window.theme_follower.choose(mode)
                for _ in range(10):
                    app.processEvents()
                target = out_dir / f"window-{mode.value}.png"
                if not window.grab().save(str(target)):
                    raise RuntimeError(f"could not write {target}")
                written.append(target)
            window.close()
            app.processEvents()
        finally:
            store.close()
            theme_manager().set_mode(ThemeMode.SYSTEM)  # a caller that goes on gets the system's theme back
    return written


def problems(light: Path, dark: Path) -> list[str]:
    """Why the two screenshots are unusable (missing, empty, not images, or the same picture)."""
    from PySide6.QtGui import QImage

    found: list[str] = []
    images = []
    for path in (light, dark):
        image = QImage(str(path))
        if not path.is_file() or path.stat().st_size == 0 or image.isNull() or image.width() < 100:
            found.append(f"{path} is missing or empty")
        images.append(image)
    if not found and images[0] == images[1]:
        found.append(f"{light.name} and {dark.name} are the same picture: the dark theme did not apply")
    return found


def main(argv: list[str]) -> int:
    out_dir = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "screenshots"
    light, dark = render(out_dir)
    found = problems(light, dark)
    for problem in found:
        print(f"screenshots: {problem}", file=sys.stderr)
    if not found:
        print(f"{light}\n{dark}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv))
