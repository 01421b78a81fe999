"""``xworkmate gui --smoke-test`` started as ``xworkmate.entry`` starts it, with ``startup_marks`` on its
application (issue 19, item 7: when the window is first painted, and when its task list is)."""

from __future__ import annotations

import sys


def main() -> int:
    from startup_marks import install

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
