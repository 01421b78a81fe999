"""The suite's two halves (issue 33 item 5): each test runs once, in the venv it needs.

* the **Qt half** — the tests marked ``qt`` (the window, the packaging, the plugin's window fixtures) —
  runs in ``.venv`` (the gui extra, pytest-qt offscreen);
* the **core half** — every other test — runs in ``.venv-core``, the Qt-free install (no PySide6, no
  qasync, pytest-qt disabled), which is also what proves the core runs without Qt.

``make test`` runs both; ``make test-core`` the core half alone. ``check`` collects both halves and fails
when a test is in neither or in both. Standard library only: it runs under either venv's Python.

    python -m tests.support.halves check
    python -m tests.support.halves run qt|core
    python -m tests.support.halves run qt core   # both at once, each log printed whole when it ends
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Everything under these paths needs Qt; single tests elsewhere carry ``@pytest.mark.qt`` themselves.
QT_PATHS = (
    "tests/ui",
    "tests/packaging",
    "tests/test_qt_binding.py",
    "tests/test_design_tokens.py",
    "tests/testing/test_driver.py",
    "tests/testing/test_names_contract.py",
    "tests/testing/test_newcomer_flow.py",
)
# The core venv cannot even import these folders' conftests (they import PySide6).
CORE_IGNORES = ("tests/ui", "tests/packaging", "tests/test_qt_binding.py")
DUMP_ENV = "XWORKMATE_HALVES_DUMP"  # tests/conftest.py writes "nodeid<TAB>qt|core" per collected test
# The slowest tests, printed with each run: where the suite's time goes (issue 33 item 5).
DURATIONS = ("--durations=20",)


@dataclass(frozen=True)
class Half:
    name: str
    venv: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    # How a run spreads its tests over worker processes (pytest-xdist); not used to collect.
    workers: tuple[str, ...] = ()

    @property
    def python(self) -> Path:
        return ROOT / self.venv / "bin" / "python"

    def command(self, *extra: str) -> list[str]:
        return [str(self.python), "-m", "pytest", *self.args, *extra]

    def run_command(self, *extra: str) -> list[str]:
        """The command ``make test`` runs: the tests spread over the half's workers, the slowest listed."""
        return self.command(*self.workers, *DURATIONS, *extra)

    def environ(self) -> dict[str, str]:
        return {**os.environ, **dict(self.env)}


QT = Half("qt", ".venv", ("-m", "qt"), (("QT_QPA_PLATFORM", "offscreen"), ("QT_API", "pyside6")))
# The core half spends most of its time waiting on the processes, servers and databases its tests start
# (measured on 2 cores: its pytest process used 0.03 CPU-s per second of wall time, the processes it
# started 0.55): two workers, each test file whole on one of them (a file's module-scoped set-up, e.g. a
# real agent CLI's, paid once).
CORE = Half(
    "core",
    ".venv-core",
    ("-p", "no:pytest-qt", "-p", "no:cacheprovider", "-m", "not qt", "tests", *(f"--ignore={p}" for p in CORE_IGNORES)),
    workers=("-n", "2", "--dist", "loadfile"),
)
HALVES = {half.name: half for half in (QT, CORE)}


def is_qt_path(relative: str) -> bool:
    """Whether a test file (a path relative to the repository, with ``/``) belongs to the Qt half."""
    return any(relative == path or relative.startswith(path + "/") for path in QT_PATHS)


def _collected(half: Half, *extra: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(
        half.command("--collect-only", "-q", "-p", "no:cacheprovider", *extra),
        cwd=ROOT,
        env=env or half.environ(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"collecting the {half.name} half failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return [line for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")]


@dataclass(frozen=True)
class Split:
    everything: list[str]
    qt: set[str]
    core: set[str]

    @property
    def in_neither(self) -> list[str]:
        return [test for test in self.everything if test not in self.qt and test not in self.core]

    @property
    def in_both(self) -> list[str]:
        return sorted(self.qt & self.core)

    @property
    def unknown(self) -> list[str]:
        """Collected by a half but not by the whole suite (a test only one venv can see)."""
        return sorted((self.qt | self.core) - set(self.everything))


def split() -> Split:
    """The whole suite collected once in ``.venv`` (each test tagged by its marker), the core half in
    ``.venv-core``: the Qt half is what the whole run marks ``qt``."""
    with tempfile.TemporaryDirectory(prefix="xwm-halves-") as tmp:
        dump = Path(tmp) / "tests.tsv"
        # The Qt half's command without "-m qt": the whole suite, as the Qt venv sees it.
        whole = Half("whole", QT.venv, (), QT.env)
        _collected(whole, env={**whole.environ(), DUMP_ENV: str(dump)})
        tagged = [line.split("\t") for line in dump.read_text().splitlines()]
    core = set(_collected(CORE))
    return Split([test for test, _ in tagged], {test for test, half in tagged if half == "qt"}, core)


def check() -> int:
    found = split()
    print(
        f"suite halves: {len(found.everything)} tests = {len(found.qt)} Qt (.venv) + {len(found.core)} core"
        " (.venv-core)"
    )
    problems = [
        ("in neither half", found.in_neither),
        ("in both halves", found.in_both),
        ("collected by a half only", found.unknown),
    ]
    failed = False
    for label, tests in problems:
        if tests:
            failed = True
            print(f"{len(tests)} test(s) {label}:", *tests[:20], sep="\n  ", file=sys.stderr)
    return 1 if failed else 0


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def _wall_line(half: Half, seconds: float) -> str:
    return f"{half.name} half ({half.venv}): wall time {seconds:.0f} s on {os.cpu_count()} cores, load {_load()}"


def run(name: str) -> int:
    half = HALVES[name]
    start = time.monotonic()
    done = subprocess.run(half.run_command(), cwd=ROOT, env=half.environ(), check=False)
    print(_wall_line(half, time.monotonic() - start), flush=True)
    return done.returncode


def run_together(halves: list[Half]) -> int:
    """The halves side by side (issue 33 item 5: the core half mostly waits on processes, servers and
    databases, see ``CORE``). Each half's output goes to a file and is printed whole when that half
    ends, so the two logs never interleave; non-zero if either half failed."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="xwm-halves-") as tmp:
        running: dict[Half, tuple[subprocess.Popen[bytes], Path]] = {}
        for half in halves:
            log = Path(tmp) / f"{half.name}.log"
            with log.open("wb") as out:
                child = subprocess.Popen(
                    half.run_command(), cwd=ROOT, env=half.environ(), stdout=out, stderr=subprocess.STDOUT
                )
            running[half] = (child, log)
            print(f"{half.name} half ({half.venv}) started; its log follows when it ends", flush=True)
        status = 0
        while running:
            for half, (child, log) in list(running.items()):
                if child.poll() is None:
                    continue
                del running[half]
                sys.stdout.flush()
                sys.stdout.buffer.write(log.read_bytes())
                print(_wall_line(half, time.monotonic() - start), f"exit {child.returncode}", flush=True)
                status = status or (1 if child.returncode else 0)
            time.sleep(0.2)
    names = " + ".join(half.name for half in halves)
    print(f"halves {names} side by side: wall time {time.monotonic() - start:.0f} s, load {_load()}", flush=True)
    return status


def main(argv: list[str]) -> int:
    if argv == ["check"]:
        return check()
    if len(argv) == 2 and argv[0] == "run" and argv[1] in HALVES:
        return run(argv[1])
    if len(argv) > 2 and argv[0] == "run" and set(argv[1:]) <= set(HALVES) and len(set(argv[1:])) == len(argv) - 1:
        return run_together([HALVES[name] for name in argv[1:]])
    print(f"usage: python -m tests.support.halves check | run {'|'.join(HALVES)} [...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
