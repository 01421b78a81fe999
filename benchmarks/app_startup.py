"""``xworkmate gui --smoke-test`` started as ``xworkmate.entry`` starts it, with ``startup_marks`` on its
application (issue 19, item 7: when the window is first painted, and when its task list is)."""

from __future__ import annotations

import gc
import sys


def main() -> int:
    gc.disable()  # as xworkmate.entry does while the libraries load
    try:
        from xworkmate.cli import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    from startup_marks import install

    from xworkmate.ui import app as ui_app  # the CLI imports it here too, with the collector on

    made = ui_app._application

    def application() -> ui_app.QApplication:
        app = made()
        install(app)
        return app

    ui_app._application = application
    try:
        return cli_main(["gui", "--smoke-test"])
    finally:
        gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
