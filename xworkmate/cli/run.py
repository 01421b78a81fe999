"""``xworkmate COMMAND``: the parser of every command family, and ``main``, which runs one (ERR-1)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xworkmate import __version__
from xworkmate.cli.common import (
    EXIT_DATABASE,
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_SYSTEM,
    CliError,
    Command,
    _settings,
    log,
)
from xworkmate.cli.exits import quiet_end, said_if_signalled, stdout_reader_gone
from xworkmate.cli.gui import add_gui_parser, missing_gui_modules
from xworkmate.home import chosen_home
from xworkmate.logfile import install_log_file
from xworkmate.settings import Settings
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController
    from xworkmate.ui.opening import Opening

# Issue 33 item 5: the controllers (and with them the store, SQLAlchemy and the agents) load when a
# command runs, not when its line is parsed: `xworkmate --version`, `--help` and a mistyped command stay light.

__all__ = ["build_parser", "main", "missing_gui_modules", "report_failure", "run_window", "window_opening"]


def cmd_gui(args: argparse.Namespace, controller: SessionController) -> int:
    """The window over a controller opened already (``main`` runs ``run_window`` instead)."""
    if args.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from xworkmate.ui.app import run_gui

    return run_gui(controller, smoke_test=args.smoke_test)


def run_window(args: argparse.Namespace, settings: Settings, log_path: Path | None) -> int:
    """``xworkmate gui`` over settings read already: the window shows first; the store opens on a worker
    right after its first paint (issue 19, item 7). A failure to open is said in the window and, as every
    command's, in one line on stderr with the exit code of its kind (ERR-1); the process ends when the
    person closes the window. (``xworkmate gui`` itself starts in ``cli/window``, before this module loads.)"""
    if args.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from xworkmate.ui.app import run_gui

    return said_if_signalled(run_gui(_opening(settings, log_path), smoke_test=args.smoke_test))


def window_opening() -> Opening:
    """How the window painted by ``cli/window`` gets its store: the settings and the log file, as ``main``
    reads them, and the store's opening. Settings that are not valid are said in the window as a failure
    to open (ERR-1: one line, exit 1), like a database that does not open."""
    try:
        settings = _settings()
    except CliError as exc:
        from xworkmate.ui.opening import Opening

        refusal = exc

        def refuse() -> SessionController:
            raise refusal

        return Opening(open=refuse, home=chosen_home(), database_url="", failed=_said_on_stderr("", None))
    return _opening(settings, install_log_file(settings.home))


def _opening(settings: Settings, log_path: Path | None) -> Opening:
    from xworkmate.controllers.app import open_controller
    from xworkmate.ui.opening import Opening

    database_url = settings.effective_database_url
    return Opening(
        open=lambda: open_controller(settings),
        home=settings.home,
        database_url=database_url,
        failed=_said_on_stderr(database_url, log_path),
    )


def _said_on_stderr(database_url: str, log_path: Path | None) -> Callable[[BaseException], tuple[str, int]]:
    def failed(exc: BaseException) -> tuple[str, int]:
        message, code = _failure(exc, database_url, log_path)
        print(f"xworkmate: error: {escape_for_terminal(message.strip() or 'failed')}", file=sys.stderr)
        return message, code

    return failed


def build_parser() -> argparse.ArgumentParser:
    # The command families load here, not with this module: the window imports ``window_opening`` from it
    # after its first paint and needs none of them (issue 34 item 4: what the usable window waits for).
    from xworkmate.cli.agent import add_mcp_parser
    from xworkmate.cli.checkpoints import add_checkpoint_commands
    from xworkmate.cli.providers import add_provider_parser
    from xworkmate.cli.queue import add_queue_parser
    from xworkmate.cli.search import add_search_and_export_commands
    from xworkmate.cli.skills import add_skills_parser
    from xworkmate.cli.tasks import add_run_parser, add_task_and_messages_parsers
    from xworkmate.cli.threads import add_thread_parser

    parser = argparse.ArgumentParser(prog="xworkmate", description="XWorkmate: a desktop workbench for AI agent tasks.")
    parser.add_argument("--version", action="version", version=f"xworkmate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    add_gui_parser(sub).set_defaults(func=cmd_gui)

    add_thread_parser(sub)
    add_skills_parser(sub)
    add_mcp_parser(sub)
    add_provider_parser(sub)
    add_task_and_messages_parsers(sub)
    add_queue_parser(sub)  # issue 31: the follow-up queue

    doctor = sub.add_parser("doctor", help="which sandbox contains agents, the database, keyring and agents found")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(func=cmd_doctor, doctor=True)
    add_run_parser(sub)
    add_checkpoint_commands(sub)  # changes, restore, revert, checkpoints (LOOP-1)
    add_search_and_export_commands(sub)  # LOOP-3
    return parser


def cmd_doctor(args: argparse.Namespace, controller: SessionController | None = None) -> int:
    """Print which sandbox contains agents and why, the database, the keyring and the agents found."""
    from xworkmate.controllers.doctor import gather_facts

    facts = gather_facts(_settings())
    if args.json:
        print(json_text([{"name": f.name, "ok": f.ok, "detail": f.detail} for f in facts]))
    else:
        width = max(len(f.name) for f in facts)
        for fact in facts:
            print(f"{'ok ' if fact.ok else '!! '} {fact.name.ljust(width)}  {escape_for_terminal(fact.detail)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. ERR-1: every failure ends as one line on stderr and an exit code of its kind;
    the traceback, when there is one, goes to the log file under the data folder."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Command | None = getattr(args, "func", None)
    if func is None:
        args = parser.parse_args(["gui", *(argv or [])])
        func = cmd_gui
    if func is cmd_gui and (missing := missing_gui_modules()):
        # Issue 19: the core installs without Qt; the window says in one line how to get it.
        return _fail(
            f"the window needs {' and '.join(missing)}, which are not installed: "
            "pip install 'xworkmate[gui]' (the command line works without them)",
            EXIT_ERROR,
            window=False,
            database_url="",
        )
    window = func is cmd_gui and not getattr(args, "smoke_test", False)
    database_url = ""
    log_path: Path | None = None
    try:
        settings = _settings()
        database_url = settings.effective_database_url
        log_path = install_log_file(settings.home)
        if getattr(args, "doctor", False):
            return cmd_doctor(args)  # needs no open store: a broken database is one of its facts
        if func is cmd_gui:
            return run_window(args, settings, log_path)
        from xworkmate.controllers.app import open_controller

        controller = open_controller(settings)
        try:
            return func(args, controller)
        finally:
            controller.close()
    except KeyboardInterrupt:
        return _fail("interrupted", EXIT_INTERRUPTED, window=False, database_url=database_url)
    except Exception as exc:
        if stdout_reader_gone(exc):
            return quiet_end()  # `xworkmate thread list --json | head` has what it wanted
        message, code = _failure(exc, database_url, log_path)
        return _fail(message, code, window=window, database_url=database_url)


def _failure(exc: BaseException, database_url: str, log_path: Path | None) -> tuple[str, int]:
    """A failure's one line and exit code (ERR-1). The product saying no: its words, exit 1, no traceback.
    The database, the system, or a bug of ours: described, with the traceback to the log file."""
    if isinstance(exc, CliError):
        return str(exc), exc.code  # said already in its words; its cause (a turn's database) gives the code
    if isinstance(exc, _refusals()):
        return (str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)), EXIT_ERROR
    from xworkmate.controllers.failures import describe_failure

    log.error("command failed", exc_info=exc)
    message = describe_failure(exc, database_url)
    if log_path is not None:
        message = message.replace("the log file", str(log_path))
    return message, _failure_code(exc)


def _failure_code(exc: BaseException) -> int:
    from xworkmate.controllers.failures import is_database_failure

    if is_database_failure(exc):
        return EXIT_DATABASE
    return EXIT_SYSTEM if isinstance(exc, OSError) else EXIT_INTERNAL


def _refusals() -> tuple[type[BaseException], ...]:
    """Failures that are the product saying no: one line, exit 1, no traceback anywhere."""
    from xworkmate.controllers import UnknownSessionKeyError, WorkspaceBindingError
    from xworkmate.controllers.app import LLMError
    from xworkmate.domain.categories import InvalidCategoryError
    from xworkmate.domain.keys import InvalidSessionKeyError
    from xworkmate.domain.runs import NotRunnable

    return (
        CliError,
        UnknownSessionKeyError,
        InvalidSessionKeyError,
        WorkspaceBindingError,
        NotRunnable,
        InvalidCategoryError,
        LookupError,
        ValueError,
        LLMError,
    )


def report_failure(exc: BaseException, *, window: bool) -> int:
    """A failure of ``xworkmate gui`` before its store's opening was made (``cli/window``): one line, its code."""
    message, code = _failure(exc, "", None)
    return _fail(message, code, window=window, database_url="")


def _fail(message: str, code: int, *, window: bool, database_url: str) -> int:
    """Say it in one line on stderr; when the window was to open, also in a dialog (ERR-1)."""
    line = escape_for_terminal(message.strip() or "failed")  # control characters shown as escapes: one line
    print(f"xworkmate: error: {line}", file=sys.stderr)
    if window:
        try:
            from xworkmate.controllers.app import describe_database_url
            from xworkmate.ui.dialogs import StartupErrorDialog

            StartupErrorDialog.ask(None, line, describe_database_url(database_url))
        except Exception:  # no display: the line on stderr is all there is
            log.warning("could not show the start-up error dialog", exc_info=True)
    return code
