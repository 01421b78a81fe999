"""``xworkmate gui --smoke-test`` started as ``xworkmate.entry`` starts it, with ``startup_marks`` on its
application (issue 19, item 7: when the window is first painted, and when its task list is)."""

from __future__ import annotations

import time

STARTED = time.time()  # python is up: the interpreter and site have loaded (issue 34, item 4)

import sys  # noqa: E402


def main() -> int:
    from startup_marks import install, note
    from startup_phases import install as install_phases

    note("python_started", STARTED)
    install_phases()  # before the app's modules load: it wraps a few of them as they do

    from xworkmate import entry
    from xworkmate.ui import start  # the entry imports it for the window too, before its first paint

    made = start._application

    def application() -> start.QApplication:
        app = made()
        install(app)
        return app

    start._application = application
    return entry.main(["gui", "--smoke-test"])


if __name__ == "__main__":
    sys.exit(main())
