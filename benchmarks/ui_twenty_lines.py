"""Twenty lines streaming at once into the real window (issue 34 item 1; SPEC §5, §6).

A measurement, not a test. Sixteen native lines (each its own local OpenAI-compatible
server: two tool calls, then a paced Markdown answer; the servers in a process of their
own, at the lowest CPU priority: a provider is another machine) and four lines run by the real
scripted ACP agent (a tool card, the answer streamed in chunks with tool cards arriving
in between) all stream at about 2,000 tokens/s each, started 25 ms apart, into the
real window (offscreen, painting), through the real controller and agent loops.

Measured while all stream, each beside the same window idle (the same lines, their
replies stored, nothing running), in one run:

- event-loop lag p99: how late a 5 ms ``QTimer`` ticks (gap minus interval);
- switch p95 between two streaming lines (one native, one ACP): from selecting the line
  in the list until the message list is painted with it (and, as a note, until the event
  processing pass that painted it ended, as ``benchmarks.gui_common.switch_and_settle``);
- RSS growth per line (peak while streaming, and after, over the RSS before);
- every reply stored complete (checked, the run fails otherwise).

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.ui_twenty_lines
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # also runnable as a plain script

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QLabel

from benchmarks.common import Figure, markdown_tokens, percentile, rss_mb, temp_home
from benchmarks.gui_common import application
from xworkmate.controllers import RunDelta, SessionController
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ExecutionMode
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.store import open_store
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply
from xworkmate.ui import MainWindow, build_main_window
from xworkmate.ui.collector import GuiThreadCollector

LINES = int(os.environ.get("XW_BENCH_LINES", "20"))
ACP_LINES = min(LINES, int(os.environ.get("XW_BENCH_ACP_LINES", "4")))
TOKENS = int(os.environ.get("XW_BENCH_TOKENS", "4000"))  # per line: about 2 s at 2,000 tokens/s
NATIVE_TOKENS_PER_CHUNK = 4  # a stream chunk of an OpenAI-compatible server carries a few tokens
ACP_TOKENS_PER_CHUNK = 10
RATE = 2000.0  # tokens/s a line, as paced by the server / the agent
STAGGER_S = 0.025
TICK_MS = 5
SWITCH_EVERY_MS = int(os.environ.get("XW_BENCH_SWITCH_EVERY_MS", "120"))
"""How long each of the two lines is left before the switch back to it: 120 ms, a person going back and forth
fast (the issue's figure); ``XW_BENCH_SWITCH_EVERY_MS=1000`` measures a person who reads a line a second first."""
IDLE_S = 2.0
LATE_MS = 16.0  # a tick this late is a dropped frame


def _machine_cpu() -> dict[str, float]:
    """CPU seconds used so far by this process, by the processes it started (the local servers, the ACP
    agents: running or waited for), and by the whole machine (``/proc/stat``)."""
    tick = os.sysconf("SC_CLK_TCK")
    procs: dict[int, tuple[int, float]] = {}  # pid: (parent, own + waited children's CPU)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        procs[int(entry.name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]) / tick)
    me = os.getpid()
    own = (lambda f: (int(f[11]) + int(f[12])) / tick)(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split())
    started = procs.get(me, (0, own))[1] - own  # the children already waited for
    mine = {me}
    for pid in sorted(procs):  # a child's pid is usually above its parent's; a second pass catches the rest
        if procs[pid][0] in mine:
            mine.add(pid)
    for pid in sorted(procs):
        if procs[pid][0] in mine:
            mine.add(pid)
    started += sum(procs[pid][1] for pid in mine - {me})
    busy = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    machine = (sum(busy) - busy[3] - busy[4]) / tick  # all but idle and iowait
    return {"this process": own, "its children": started, "machine": machine}


def _thread_cpu() -> dict[str, float]:
    """CPU seconds each of this process's threads has used, by its Python name (the kernel's ticks)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task.name), "(not Python's)")
        name = name.split("_", 1)[0] if name.startswith("ThreadPoolExecutor") else name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def _router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(
        providers,
        retry=RetryPolicy(max_retries=0, base_delay=0.01, max_delay=0.02, max_retry_after=0.1),
        timeouts=Timeouts(connect=5.0, read=60.0, write=5.0, pool=10.0),
    )


def _tokens(prefix: str, count: int = TOKENS) -> list[str]:
    return markdown_tokens(prefix, count)


def _chunks(tokens: list[str], size: int) -> list[str]:
    return ["".join(tokens[i : i + size]) for i in range(0, len(tokens), size)]


class _RunQueueWait:
    """Seconds the thread that made it has waited, runnable, for a CPU so far (the kernel's schedstat; 0 without
    it). Opened once and read with pread: opening it each time cost the GUI thread ~0.3 ms."""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        except OSError:
            self._fd = None

    def __call__(self) -> float:
        if self._fd is None:
            return 0.0
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0


class _Ticker:
    """A 5 ms timer: how late each tick comes (ms) is the event loop's lag. For each gap it also notes the
    GUI thread's own CPU time: a late tick with little of it waited (on the interpreter lock, or in a call
    that blocks), one with much of it worked."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        # For each late tick: (lag ms, share of the gap the GUI thread ran, share it waited for a CPU).
        self.cpu_shares: list[tuple[float, float, float]] = []
        self._last = self._last_cpu = self._last_queued = 0.0
        self._queued = _RunQueueWait()
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now, cpu, queued = time.perf_counter(), time.thread_time(), self._queued()
        lag = max(0.0, (now - self._last) * 1000 - TICK_MS)
        self.lags.append(lag)
        if lag > LATE_MS:
            gap = max(now - self._last, 1e-9)
            self.cpu_shares.append((lag, (cpu - self._last_cpu) / gap, (queued - self._last_queued) / gap))
        self._last, self._last_cpu, self._last_queued = now, cpu, queued

    def start(self) -> None:
        self.lags.clear()
        self.cpu_shares.clear()
        self._last, self._last_cpu, self._last_queued = time.perf_counter(), time.thread_time(), self._queued()
        self._timer.start()

    def stop(self) -> list[float]:
        self._timer.stop()
        return list(self.lags)


class _Painted(QObject):
    """When the message list's viewport first got a paint event (the moment it starts drawing) while the
    window's key label showed ``wanted`` (the line switched to); ``at`` is 0 until then. ``cpu_at`` and
    ``waited_at`` are the GUI thread's CPU seconds and its wait for a CPU (``_RunQueueWait``) at that moment."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.at = self.cpu_at = self.waited_at = 0.0
        self.waited = _RunQueueWait()
        self.wanted = ""
        self.count = 0  # every paint of the conversation's viewport
        label = window.findChild(QLabel, "sessionKeyLabel")
        assert label is not None
        self._label = label
        window.message_list.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
            if not self.at and self.wanted in self._label.text():
                self.at, self.cpu_at, self.waited_at = time.perf_counter(), time.thread_time(), self.waited()
        return False


class _Switched(NamedTuple):
    """One switch, in seconds: to the paint, to the end of its pass, the GUI thread's CPU to the end of the
    pass, and to the paint its CPU and its wait for a CPU (a slow switch with little of either waited for the
    interpreter lock)."""

    painted: float
    passed: float
    cpu: float
    cpu_to_paint: float
    waited_to_paint: float


def _switch(window: MainWindow, key: str, painted: _Painted) -> _Switched:
    """Select ``key`` in the list as a click would; seconds until the message list is painted with it, and
    until the event processing pass that painted it has ended (as ``gui_common.switch_and_settle``) and the work
    the switch left for after the paint has run (``ShownLine.after_paint``), and the GUI thread's CPU seconds
    until then (less shaken by the machine's load than the wall clock).

    Called from a Qt timer, outside any asyncio task, so the nested event processing runs the streaming
    turns' callbacks as the real loop would: the second figure includes whatever that pass ran besides.
    A paint counts once the window's key label shows the line (the window may paint it within the click).
    """
    label = window.findChild(QLabel, "sessionKeyLabel")
    assert label is not None
    app = application()
    painted.at, painted.wanted = 0.0, key
    start, cpu, waited = time.perf_counter(), time.thread_time(), painted.waited()
    window.task_pane.list_view.setCurrentIndex(window.task_list.proxy_index_of(key))
    while key not in label.text():
        app.processEvents()
    viewport = window.message_list.viewport()
    if not viewport.isVisible():  # an empty line shows its empty state instead: the pass, as gui_common
        app.processEvents()
        passed, used = time.perf_counter() - start, time.thread_time() - cpu
        return _Switched(passed, passed, used, used, painted.waited() - waited)
    if painted.at:
        app.processEvents()  # painted within the click: the pass after it, which the click's paint would end
    else:
        viewport.update()  # merged with the switch's own request; never a paint less
    deadline = time.perf_counter() + 5
    while painted.at == 0.0:
        if time.perf_counter() > deadline:
            raise RuntimeError("the message list was not painted within 5 s of the switch")
        app.processEvents()
    while window.shown.deferred.pending and time.perf_counter() < deadline:
        app.processEvents()  # the pass figure and the CPU include the work the switch left for after the paint
    return _Switched(
        painted.at - start,
        time.perf_counter() - start,
        time.thread_time() - cpu,
        painted.cpu_at - cpu,
        painted.waited_at - waited,
    )


class _PartTimes:
    """A phase report of the switch: how long each part of the window takes to show the switched-to line
    (``LinePart.show_line``, in the window's order), while ``on``."""

    def __init__(self, window: MainWindow) -> None:
        self.ms: dict[str, list[float]] = {}
        self.on = False
        for part in window.shown.parts:
            part.show_line = self._timed(type(part).__name__, part.show_line)  # type: ignore[method-assign]

    def _timed(self, name: str, show: Any) -> Any:
        def timed(*args: Any) -> None:
            if not self.on:
                show(*args)
                return
            start = time.perf_counter()
            show(*args)
            self.ms.setdefault(name, []).append((time.perf_counter() - start) * 1000)

        return timed

    def medians(self) -> dict[str, float]:
        return {name: percentile(times, 50) for name, times in self.ms.items()}


class _Switcher:
    """Every ``SWITCH_EVERY_MS``, switch between two lines and time it."""

    def __init__(self, window: MainWindow, keys: tuple[str, str]) -> None:
        self.switched: list[_Switched] = []
        # Counted, not timed, per switch: characters of streaming answers rendered, stored rows built for painting,
        # bodies rendered, paints of the conversation (the machine's load does not move them).
        self.counts: list[tuple[int, int, int, int]] = []
        self.busy_counts: list[tuple[int, int, int, int]] = []
        self._painted = _Painted(window)
        self._window, self._keys, self._n = window, keys, 0
        # XW_BENCH_PROFILE_SWITCH=path: cProfile of the GUI thread during the switches only (with what the
        # nested event processing ran besides), written as path.busy and path.idle.
        self.profile: Any = None
        self._timer = QTimer()
        self._timer.setInterval(SWITCH_EVERY_MS)
        self._timer.timeout.connect(self._once)

    def _once(self) -> None:
        self._timer.stop()  # no re-entry while the nested event processing runs
        self._n += 1
        if self.profile is not None:
            self.profile.enable()
        before = self._counted()
        switched = _switch(self._window, self._keys[self._n % 2], self._painted)
        after = self._counted()
        self.counts.append((after[0] - before[0], after[1] - before[1], after[2] - before[2], after[3] - before[3]))
        if self.profile is not None:
            self.profile.disable()
        self.switched.append(switched)
        self._timer.start()

    def _counted(self) -> tuple[int, int, int, int]:
        delegate = self._window.message_list.message_delegate
        model = self._window.message_model
        chars = getattr(delegate, "streamed_chars_rendered", None)  # the code before it: its bodies' own counts
        if chars is None:
            chars = sum(body.rendered_chars for body in delegate._streaming.values())
        return (chars, model.rows_built, delegate.bodies_built, self._painted.count)

    def mean_counts(self) -> tuple[float, ...]:
        return tuple(sum(c[i] for c in self.counts) / max(len(self.counts), 1) for i in range(4))

    def start(self, profile_as: str = "") -> None:
        self.switched.clear()
        self.counts.clear()
        self._profile_as = profile_as
        if (path := os.environ.get("XW_BENCH_PROFILE_SWITCH")) and profile_as:
            import cProfile

            self.profile, self._profile_path = cProfile.Profile(), f"{path}.{profile_as}"
        self._timer.start()

    def stop(self) -> list[float]:
        self._timer.stop()
        if self.profile is not None:
            self.profile.dump_stats(self._profile_path)
            self.profile = None
        return self.times

    @property
    def times(self) -> list[float]:
        """Each switch's ms to the paint."""
        return [s.painted * 1000 for s in self.switched]

    @property
    def passes(self) -> list[float]:
        """Each switch's ms to the end of the pass that painted it."""
        return [s.passed * 1000 for s in self.switched]

    @property
    def cpu(self) -> list[float]:
        """Each switch's GUI thread CPU ms to the end of that pass."""
        return [s.cpu * 1000 for s in self.switched]


def _to_paint(switched: list[_Switched]) -> dict[str, tuple[float, float]]:
    """Where a switch's time to the paint went, p50 and p95 of each: the GUI thread's CPU, its wait for a CPU,
    and the rest (the interpreter lock, a call that blocks)."""
    parts = {
        "cpu": [s.cpu_to_paint * 1000 for s in switched],
        "waited": [s.waited_to_paint * 1000 for s in switched],
        "rest": [(s.painted - s.cpu_to_paint - s.waited_to_paint) * 1000 for s in switched],
    }
    return {name: (percentile(ms, 50), percentile(ms, 95)) for name, ms in parts.items()}


def _slowest(switched: list[_Switched], counts: list[tuple[int, int, int, int]]) -> list[tuple[Any, ...]]:
    """The three slowest switches (p95 of a few dozen lies among them): which one (1 = the first), ms to the
    paint, to the paint the GUI thread's CPU ms and its ms waiting for a CPU, its CPU ms to the end of the pass,
    and what was done for it: characters of streaming answers rendered, stored rows built, bodies rendered."""
    order = sorted(range(len(switched)), key=lambda i: -switched[i].painted)[:3]
    return [
        (
            i + 1,
            round(switched[i].painted * 1000, 1),
            round(switched[i].cpu_to_paint * 1000, 1),
            round(switched[i].waited_to_paint * 1000, 1),
            round(switched[i].cpu * 1000, 1),
            *counts[i][:3],
        )
        for i in order
    ]


def _native_replies(index: int) -> tuple[list[Any], str]:
    tokens = _tokens(f"n{index}_")
    look = ScriptedToolCall(id=f"c{index}a", name="list_dir", arguments=json.dumps({"path": "."}))
    again = ScriptedToolCall(id=f"c{index}b", name="list_dir", arguments=json.dumps({"path": "."}))
    chunks = _chunks(tokens, NATIVE_TOKENS_PER_CHUNK)
    replies = [
        ToolCallReply([look]),
        ToolCallReply([again]),
        TextReply(chunks, delay=NATIVE_TOKENS_PER_CHUNK / RATE),
    ]
    return replies, "".join(tokens)


def _serve(indices: list[int], turns: int) -> None:
    """The child process: one scripted server per native line, ``turns`` turns each; their URLs on stdout.

    The servers run in their own process, as a provider does: their threads must not compete for this
    process's interpreter lock with the window they stream into.
    """
    servers = [OpenAIServer() for _ in indices]
    for server, index in zip(servers, indices, strict=True):
        server.start()
        replies, _text = _native_replies(index)
        for _ in range(turns):
            server.script(*replies)
    print(json.dumps([server.base_url for server in servers]), flush=True)
    sys.stdin.read()  # until the parent closes it
    for server in servers:
        server.stop()


SERVERS_NICE = int(os.environ.get("XW_BENCH_SERVERS_NICE", "19"))
"""The providers' process runs at this nice value. A provider is another machine: its CPU is not the window's to
share. On this one, the sixteen servers take about half a core, and at the nice value the window runs at they
would compete with it for the cores as no real provider does; at 19 they take only what nothing else here wants.
``XW_BENCH_SERVERS_NICE=0`` measures with them competing (the figures before issue 34's eighth session)."""


class _Servers:
    """``_serve`` in a child process (at ``SERVERS_NICE``)."""

    def __init__(self, indices: list[int], turns: int) -> None:
        serve = [sys.executable, "-m", "benchmarks.ui_twenty_lines", "--serve", json.dumps(indices), str(turns)]
        self._proc = subprocess.Popen(
            ["nice", "-n", str(SERVERS_NICE), *serve] if SERVERS_NICE else serve,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert self._proc.stdout is not None
        self.urls: list[str] = json.loads(self._proc.stdout.readline())

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=30)


def _acp_turn(index: int) -> tuple[list[dict[str, Any]], str]:
    tokens = _tokens(f"a{index}_")
    chunks = _chunks(tokens, ACP_TOKENS_PER_CHUNK)
    steps: list[dict[str, Any]] = []
    cards = {len(chunks) * k // 4: k for k in range(4)}  # a tool card at 0, 1/4, 1/2 and 3/4 of the answer
    for n, chunk in enumerate(chunks):
        if n in cards:
            k = cards[n]
            tool = {"id": f"t{k}", "title": f"Read part {k}", "kind": "read", "status": "completed", "text": "ok"}
            steps.append({"tool": tool})
        steps.append({"sleep": ACP_TOKENS_PER_CHUNK / RATE})
        steps.append({"say": chunk})
    return steps, "".join(tokens)


def _stored_answer(controller: SessionController, key: str) -> str:
    answers = [m for m in controller.lines.messages(key) if m.role is MessageRole.ASSISTANT]
    return answers[-1].content if answers else ""


def measure() -> dict[str, Any]:
    app = application()
    from xworkmate.ui.event_loop import AppEventLoop  # the app's loop (ui/start.py), after PySide6

    loop = AppEventLoop(app)
    if interval := os.environ.get("XW_BENCH_SWITCH_INTERVAL_MS"):  # the interpreter's, instead of the loop's own
        sys.setswitchinterval(float(interval) / 1000)
    asyncio.set_event_loop(loop)
    r: dict[str, Any] = {}
    phases: dict[str, float] = {}
    mark = time.perf_counter()

    def phase(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        phases[name] = now - mark
        mark = now
        print(f"  phase {name}: {phases[name]:.2f} s", file=sys.stderr, flush=True)

    # Line 0 native, line 1 ACP (the pair switched between), then ACP every fifth line.
    acp_at = set(sorted({1, *range(5, LINES, 5)})[:ACP_LINES]) if ACP_LINES else set()
    while len(acp_at) < ACP_LINES:
        acp_at.add(max(set(range(LINES)) - acp_at))
    servers = _Servers([i for i in range(LINES) if i not in acp_at], turns=2)
    try:
        with temp_home() as settings:
            store = open_store(settings.effective_database_url)
            controller = SessionController(store, settings, router_factory=_router)
            keys: list[str] = []
            expected: dict[str, str] = {}
            starts: list[tuple[str, str | None]] = []  # each line and the provider it runs on
            native_keys: list[str] = []
            acp_keys: list[str] = []
            for i in range(LINES):
                line = controller.lines.create_line(f"Line {i}")
                keys.append(line.thread_id)
            for i, key in enumerate(keys):
                if i in acp_at:
                    steps, text = _acp_turn(i)
                    scripted_agent(controller, settings.home / "agents", f"agent{i}", turn=steps)
                    controller.line_settings.set_execution(key, ExecutionMode.ACP, f"agent{i}")
                    acp_keys.append(key)
                    expected[key] = text
                    starts.append((key, None))
                else:
                    name = f"server{i}"
                    url = servers.urls[len(native_keys)]
                    controller.providers.add_provider(
                        ProviderRecord(name=name, base_url=url, model="m", is_default=not native_keys)
                    )
                    _replies, text = _native_replies(i)
                    native_keys.append(key)
                    expected[key] = text
                    starts.append((key, name))
            controller.warm_up()
            phase("lines and agents set up")

            window = build_main_window(controller)
            window.persist_ui_state = False
            window.resize(1280, 800)
            window.show()
            for _ in range(5):
                app.processEvents()
            gc.freeze()  # as run_gui does before it enters the event loop
            # As run_gui: the cycle collector runs on the GUI thread's timer, never inside another thread's work
            # (a turn's store thread) nor in the middle of a switch, as the automatic one would.
            collector = GuiThreadCollector(app)
            collector.start()
            pair = (keys[0], keys[min(1, LINES - 1)])
            _switch(window, pair[0], _Painted(window))
            phase("window shown")

            deltas = {"n": 0, "acp": 0}
            acp_set = set(acp_keys)
            first: dict[str, float] = {}
            last: dict[str, float] = {}

            def count(change: object) -> None:
                if isinstance(change, RunDelta):
                    deltas["n"] += 1
                    deltas["acp"] += change.key in acp_set
                    last[change.key] = time.perf_counter()
                    first.setdefault(change.key, last[change.key])

            unsubscribe = controller.subscribe(count)
            ticker, switcher, parts = _Ticker(), _Switcher(window, pair), _PartTimes(window)
            rss_before = rss_mb()
            rss_peak = [rss_before]
            sampler = QTimer()
            sampler.setInterval(100)
            sampler.timeout.connect(lambda: rss_peak.append(rss_mb()))

            errors: list[BaseException] = []

            def send(key: str, provider: str | None) -> None:
                # As the window's Send does: the controller's send on the store worker, the turn on the loop.
                window.operations.run(
                    lambda: controller.send(key, "stream please", provider=provider), failed=errors.append
                )

            async def all_stream(switching: bool) -> None:
                for key, provider in starts:
                    send(key, provider)
                    await asyncio.sleep(STAGGER_S)
                if switching:
                    switcher.start("busy")
                while window.operations.running or any(controller.turns.is_running(k) for k in keys):
                    if errors:
                        raise RuntimeError(f"a Send failed: {errors[0]!r}")
                    await asyncio.sleep(0.02)

            # 1. all twenty stream; the event loop's lag alone.
            ticker.start()
            sampler.start()
            t0, cpu0, threads0, machine0 = time.perf_counter(), time.thread_time(), _thread_cpu(), _machine_cpu()
            trips0, panes0 = controller._ctx.store_thread.calls, window.shown.panes_shown
            profile = None
            if os.environ.get("XW_BENCH_PROFILE"):
                import cProfile

                profile = cProfile.Profile()
                profile.enable()
            loop.run_until_complete(all_stream(switching=False))
            if profile is not None:
                profile.disable()
                profile.dump_stats(os.environ["XW_BENCH_PROFILE"])
            streaming_s = time.perf_counter() - t0
            # Counted, not timed (the machine's load does not move them): the turns' trips to their store thread
            # (each competes with the GUI thread for the interpreter) and how often the shown line's panes were
            # shown again while it streamed (no switch in this phase).
            store_trips = controller._ctx.store_thread.calls - trips0
            panes_reshown = window.shown.panes_shown - panes0
            gui_cpu_share = (time.thread_time() - cpu0) / streaming_s  # how busy the GUI thread itself was
            load = os.getloadavg()[0]
            rates = [TOKENS / (last[k] - first[k]) for k in keys if last.get(k, 0) > first.get(k, 0)]
            busy_lags = ticker.stop()
            late = list(ticker.cpu_shares)
            threads = {n: c - threads0.get(n, 0.0) for n, c in _thread_cpu().items()}
            machine = {n: c - machine0[n] for n, c in _machine_cpu().items()}
            machine["everything else"] = machine["machine"] - machine["this process"] - machine["its children"]
            sampler.stop()
            phase("twenty lines streamed (lag)")
            for _ in range(5):
                app.processEvents()
            gc.collect()
            rss_after = rss_mb()
            incomplete = [k for k in keys if _stored_answer(controller, k) != expected[k]]

            # 2. all twenty stream a second turn; switching between two of them meanwhile.
            parts.on = True
            loop.run_until_complete(all_stream(switching=True))
            parts.on = False
            busy_part_ms = parts.medians()
            parts.ms.clear()
            busy_switches = switcher.stop()
            busy_passes = switcher.passes
            busy_cpu = switcher.cpu
            busy_switched = list(switcher.switched)
            busy_counts = switcher.mean_counts()
            switcher.busy_counts = list(switcher.counts)
            unsubscribe()
            phase("twenty lines streamed again (switches)")
            incomplete += [k for k in keys if _stored_answer(controller, k) != expected[k]]
            phase("replies checked")

            # Reference: the same window idle — the same lines, their replies stored, nothing running.
            async def idle(seconds: float) -> None:
                await asyncio.sleep(seconds)

            ticker.start()
            loop.run_until_complete(idle(IDLE_S))
            idle_lags = ticker.stop()
            parts.on = True
            switcher.start("idle")
            loop.run_until_complete(idle(IDLE_S))
            idle_switches = switcher.stop()
            parts.on = False
            idle_passes = switcher.passes
            idle_cpu = switcher.cpu
            idle_counts = switcher.mean_counts()
            phase("idle reference")

            r.update(
                busy_lag_p99=percentile(busy_lags, 99),
                busy_lag_max=max(busy_lags),
                late_ticks=len(late),
                late_gui_cpu_p50=percentile([ran for _lag, ran, _queued in late], 50) if late else 0.0,
                late_gui_queued_p50=percentile([queued for _lag, _ran, queued in late], 50) if late else 0.0,
                machine_cpu_share={n: c / streaming_s for n, c in machine.items()},
                thread_cpu_share={n: c / streaming_s for n, c in sorted(threads.items(), key=lambda i: -i[1]) if c},
                busy_ticks=len(busy_lags),
                idle_lag_p99=percentile(idle_lags, 99),
                idle_lag_max=max(idle_lags),
                busy_switch_p95=percentile(busy_switches, 95),
                busy_switch_p50=percentile(busy_switches, 50),
                busy_switches=len(busy_switches),
                idle_switch_p95=percentile(idle_switches, 95),
                busy_pass_p95=percentile(busy_passes, 95),
                idle_pass_p95=percentile(idle_passes, 95),
                idle_switches=len(idle_switches),
                busy_cpu_p50=percentile(busy_cpu, 50),
                busy_slowest=_slowest(busy_switched, switcher.busy_counts),
                busy_to_paint=_to_paint(busy_switched),
                busy_counts=busy_counts,
                idle_counts=idle_counts,
                idle_cpu_p50=percentile(idle_cpu, 50),
                idle_part_ms=parts.medians(),
                busy_part_ms=busy_part_ms,
                rss_before=rss_before,
                rss_peak_growth_per_line=(max(rss_peak) - rss_before) / LINES,
                rss_after_growth_per_line=(rss_after - rss_before) / LINES,
                incomplete=len(incomplete),
                streaming_s=streaming_s,
                tokens_per_s_per_line=percentile(rates, 50),
                gui_cpu_share=gui_cpu_share,
                store_trips_per_turn=store_trips / LINES,
                panes_reshown=panes_reshown,
                load=load,
                deltas=deltas["n"],
                acp_deltas=deltas["acp"],
                acp_chunks=2 * len(acp_keys) * len(_chunks(_tokens("a0_"), ACP_TOKENS_PER_CHUNK)),
                native=len(native_keys),
                acp=len(acp_keys),
                phases=phases,
            )
            collector.stop()
            window.close()
            window.deleteLater()
            app.processEvents()
            store.close()
    finally:
        servers.close()
        loop.close()
        asyncio.set_event_loop(None)
    return r


def run() -> list[Figure]:
    r = measure()
    mix = {"native_lines": r["native"], "acp_lines": r["acp"], "tokens_per_line": TOKENS}
    return [
        Figure(
            name="20 lines streaming: event-loop lag p99",
            value=r["busy_lag_p99"],
            unit="ms",
            target="<= 16 ms",
            met=r["busy_lag_p99"] <= 16,
            reference=r["idle_lag_p99"],
            reference_label="ms p99 same window idle",
            notes={
                **mix,
                "max_ms": r["busy_lag_max"],
                "ticks": r["busy_ticks"],
                "tokens_per_s_per_line": r["tokens_per_s_per_line"],
                "deltas": r["deltas"],
                "acp_deltas": r["acp_deltas"],
                "acp_chunks": r["acp_chunks"],
                "gui_thread_cpu_share": r["gui_cpu_share"],
                "store_thread_trips_per_turn": r["store_trips_per_turn"],
                "panes_reshown_while_streaming": r["panes_reshown"],
                "late_ticks": r["late_ticks"],
                "late_tick_gui_cpu_share_p50": r["late_gui_cpu_p50"],
                "late_tick_gui_waiting_for_a_cpu_share_p50": r["late_gui_queued_p50"],
                "thread_cpu_share": r["thread_cpu_share"],
                "machine_cpu_share": r["machine_cpu_share"],
                "load_average": r["load"],
                "providers_process_nice": SERVERS_NICE,
            },
        ),
        Figure(
            name="20 lines streaming: switch p95",
            value=r["busy_switch_p95"],
            unit="ms",
            target="<= 16 ms",
            met=r["busy_switch_p95"] <= 16,
            reference=r["idle_switch_p95"],
            reference_label="ms p95 same window idle",
            notes={
                "p50_ms": r["busy_switch_p50"],
                "switches": r["busy_switches"],
                "until_event_pass_ended_p95_ms": r["busy_pass_p95"],
                "idle_until_event_pass_ended_p95_ms": r["idle_pass_p95"],
                "gui_thread_cpu_p50_ms": r["busy_cpu_p50"],
                "slowest_switches_n_ms_cpu_waited_pass_cpu_chars_rows_bodies": r["busy_slowest"],
                "to_paint_cpu_waited_rest_p50_p95_ms": r["busy_to_paint"],
                "per_switch_streamed_chars_rows_bodies_paints": r["busy_counts"],
                "idle_gui_thread_cpu_p50_ms": r["idle_cpu_p50"],
                "idle_show_line_p50_ms": r["idle_part_ms"],
                "streaming_show_line_p50_ms": r["busy_part_ms"],
            },
        ),
        Figure(
            name="20 lines streaming: RSS growth a line",
            value=r["rss_peak_growth_per_line"],
            unit="MB",
            target="<= 5 MB",
            met=r["rss_peak_growth_per_line"] <= 5,
            reference=r["rss_before"],
            reference_label="MB RSS before",
            notes={"after_per_line_mb": r["rss_after_growth_per_line"]},
        ),
        Figure(
            name="20 lines streaming: replies stored incomplete",
            value=r["incomplete"],
            unit="",
            target="0",
            met=r["incomplete"] == 0,
            reference=LINES,
            reference_label="lines",
        ),
    ]


def main() -> int:
    r = measure()
    print(
        f"{r['native']} native + {r['acp']} ACP lines, {TOKENS} tokens each,"
        f" {r['tokens_per_s_per_line']:.0f} tokens/s a line ({r['deltas']} deltas, {r['streaming_s']:.2f} s)"
        f"; the ACP lines: {r['acp_deltas']} deltas for {r['acp_chunks']} agent chunks"
    )
    print(
        f"GUI thread busy {100 * r['gui_cpu_share']:.0f}% of the time while all stream;"
        f" machine load average {r['load']:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  {r['late_ticks']} ticks over {LATE_MS:.0f} ms late; in their gaps the GUI thread was on a CPU"
        f" {100 * r['late_gui_cpu_p50']:.0f}% of the time and waited for one {100 * r['late_gui_queued_p50']:.0f}%"
        " (p50s; the rest it slept: the interpreter lock, a blocking call); each thread's CPU share: "
        + ", ".join(f"{n} {100 * c:.0f}%" for n, c in r["thread_cpu_share"].items())
    )
    print(
        f"  counted while all stream: {r['store_trips_per_turn']:.1f} trips to the turns' store thread a turn;"
        f" the shown line's panes shown again {r['panes_reshown']} times"
    )
    print(
        f"  CPU in use while all stream, of {100 * (os.cpu_count() or 1)}%: "
        + ", ".join(f"{n} {100 * c:.0f}%" for n, c in r["machine_cpu_share"].items())
    )
    print(
        f"event-loop lag p99: {r['busy_lag_p99']:6.1f} ms streaming   (idle {r['idle_lag_p99']:.1f} ms;"
        f" max {r['busy_lag_max']:.1f} ms; target <= 16 ms)"
    )
    print(
        f"switch p95:         {r['busy_switch_p95']:6.1f} ms streaming   (idle {r['idle_switch_p95']:.1f} ms;"
        f" p50 {r['busy_switch_p50']:.1f} ms over {r['busy_switches']} switches; target <= 16 ms)"
    )
    print(
        "  the slowest switches streaming (which one: ms to the paint = the GUI thread's CPU + its wait for a CPU"
        " + the rest; its CPU to the pass's end; characters, rows, bodies rendered): "
        + ", ".join(
            f"#{n} {ms} = {cpu} + {waited} + {ms - cpu - waited:.1f} ms; {pass_cpu} ms; {chars}/{rows}/{bodies}"
            for n, ms, cpu, waited, pass_cpu, chars, rows, bodies in r["busy_slowest"]
        )
    )
    print(
        "  to the paint, p50/p95: "
        + ", ".join(
            f"{name} {p50:.1f}/{p95:.1f} ms"
            for name, (p50, p95) in zip(
                ("the GUI thread's CPU", "its wait for a CPU", "the rest"), r["busy_to_paint"].values(), strict=True
            )
        )
    )
    print(
        f"  until the pass that painted it ended, p95: {r['busy_pass_p95']:.1f} ms streaming"
        f" (idle {r['idle_pass_p95']:.1f} ms)"
    )
    print(
        f"  GUI thread CPU a switch, p50: {r['busy_cpu_p50']:.1f} ms streaming (idle {r['idle_cpu_p50']:.1f} ms);"
        " idle, each part's show_line p50: "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in r["idle_part_ms"].items())
        + " ms"
    )
    chars, rows, bodies, paints = r["busy_counts"]
    print(
        f"  counted a switch while all stream (mean): {chars:.0f} characters of streaming answers rendered,"
        f" {rows:.1f} stored rows built, {bodies:.1f} bodies rendered, {paints:.1f} paints of the conversation"
        f" (idle: {r['idle_counts'][3]:.1f} paints)"
    )
    print(
        "  streaming, each part's show_line p50: "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in r["busy_part_ms"].items())
        + " ms"
    )
    print(
        f"RSS growth a line:  {r['rss_peak_growth_per_line']:6.2f} MB peak  (after {r['rss_after_growth_per_line']:.2f}"
        f" MB; before {r['rss_before']:.0f} MB; target <= 5 MB)"
    )
    print(f"replies stored incomplete: {r['incomplete']} of {LINES}")
    for name, seconds in r["phases"].items():
        print(f"  phase {name}: {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        _serve(json.loads(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
