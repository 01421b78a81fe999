"""Issue 19: ``SessionController`` is a facade over small sections that share one explicit context.

Each section is built here on its own over a real store, as the facade builds it, and must work
through the ``ControllerContext`` and the callables it is handed. Issue 33 item 4: callers reach each
section as a public attribute of the facade (``controller.turns``), which keeps no delegations of it.
"""

from __future__ import annotations

import asyncio
import inspect
import json

import pytest

from xworkmate.agents.events import ApprovalDecision, ApprovalRequest
from xworkmate.controllers import session as session_module
from xworkmate.controllers.agent_session import AgentSessionController
from xworkmate.controllers.approvals import Approvals
from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    Change,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
)
from xworkmate.controllers.checkpoints import CheckpointController
from xworkmate.controllers.context import ControllerContext, UnknownSessionKeyError
from xworkmate.controllers.external import ExternalLines
from xworkmate.controllers.line_settings import LineSettingsController
from xworkmate.controllers.lines import LineController
from xworkmate.controllers.providers import ProviderController
from xworkmate.controllers.queue import FollowupQueue
from xworkmate.controllers.session import SessionController
from xworkmate.controllers.skills import SkillsController
from xworkmate.controllers.tasks import FollowupPolicy, TaskController
from xworkmate.controllers.turns import TurnController
from xworkmate.domain.keys import MAIN_KEY
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import ExecutionMode, PermissionLevel, ThreadStatus
from xworkmate.llm.events import ToolCall
from xworkmate.settings import Settings
from xworkmate.store import Store


def test_a_line_section_works_on_the_context_alone(sqlite_store: Store, settings: Settings) -> None:
    """No facade: the lines section makes main, creates and switches lines, and reports through the sink."""
    ctx = ControllerContext(store=sqlite_store, settings=settings)
    heard: list[Change] = []
    ctx.subscribe(heard.append)
    lines = LineController(ctx, needs_sign_in=lambda key: False)
    assert lines.current_key == MAIN_KEY
    line = lines.create_line("Alone")
    view = lines.switch_session(line.thread_id)
    assert view.status is ThreadStatus.RUNNABLE
    assert heard == [LineCreated(key=line.thread_id), CurrentLineChanged(key=line.thread_id)]
    # The running-turn registry is the context's: a key in it is what "running" means to the lines.
    ctx.running.add(line.thread_id)
    assert lines.line_view(line.thread_id).status is ThreadStatus.RUNNING
    assert ctx.is_running(line.thread_id)
    with pytest.raises(UnknownSessionKeyError):
        ctx.get_thread("not a key")


def test_the_needs_sign_in_callable_is_what_the_line_view_asks(sqlite_store: Store, settings: Settings) -> None:
    ctx = ControllerContext(store=sqlite_store, settings=settings)
    waiting: set[str] = set()
    lines = LineController(ctx, needs_sign_in=lambda key: key in waiting)
    line = lines.create_line("Sign-in")
    assert not lines.line_view(line.thread_id).needs_sign_in
    waiting.add(line.thread_id)
    assert lines.line_view(line.thread_id).needs_sign_in


def test_always_on_an_approval_raises_the_native_lines_level_through_the_line_settings(
    sqlite_store: Store, settings: Settings
) -> None:
    """The approvals section holds the cards; the answer goes at once, with no store call (issue 19), and
    "Always" raises the level afterwards (the window's operation) through the callable it was handed."""
    ctx = ControllerContext(store=sqlite_store, settings=settings)
    heard: list[Change] = []
    ctx.subscribe(heard.append)
    lines = LineController(ctx, needs_sign_in=lambda key: False)
    line_settings = LineSettingsController(ctx)
    approvals = Approvals(ctx, set_permission=line_settings.set_permission)
    key = lines.create_line("Approvals").thread_id
    assert ctx.get_thread(key).context_state.permission_level is PermissionLevel.ASK
    call = ToolCall(id="w1", name="write_file", arguments=json.dumps({"path": "a.txt", "content": "x"}))

    async def scenario() -> ApprovalDecision:
        approve = approvals.window_approver(key)
        waiting = asyncio.ensure_future(approve(ApprovalRequest(thread_id=key, call=call, summary="write a.txt")))
        while not approvals.pending_approvals(key):
            await asyncio.sleep(0)
        [approval_id] = approvals.pending_approvals(key)
        assert approvals.settle(approval_id, True, always=True) == (key, "write_file")
        return await waiting

    decision = asyncio.run(scenario())
    assert decision.allowed and decision.always
    assert approvals.pending_approvals(key) == []
    assert ctx.get_thread(key).context_state.permission_level is PermissionLevel.ASK  # not yet: the answer only
    assert approvals.raise_for_always(key, "write_file") is not None
    assert approvals.raise_for_always(key, "edit_file") is None  # already high enough: no write
    sqlite_store.providers.add(ProviderRecord(name="agent", kind=ProviderKind.ACP, acp_command=("agent", "--acp")))
    line_settings.set_execution(key, ExecutionMode.ACP, "agent")
    assert approvals.raise_for_always(key, "run_command") is None  # an ACP agent remembers "always" itself
    assert ctx.get_thread(key).context_state.permission_level is PermissionLevel.AUTO_EDIT
    assert ctx.get_thread(key).context_state.permission_level is PermissionLevel.AUTO_EDIT
    requested = [c for c in heard if isinstance(c, ApprovalRequested)]
    assert [c.tool for c in requested] == ["write_file"]
    assert ApprovalSettled(key=key, approval_id=requested[0].approval_id, allowed=True) in heard
    assert LineUpdated(key=key) in heard  # the level change, reported by the line settings


def test_an_unknown_approval_is_refused_by_id(sqlite_store: Store, settings: Settings) -> None:
    ctx = ControllerContext(store=sqlite_store, settings=settings)
    approvals = Approvals(ctx, set_permission=LineSettingsController(ctx).set_permission)
    with pytest.raises(LookupError, match="no approval 404"):
        approvals.settle(404, True)
    with pytest.raises(LookupError, match="no sign-in 405"):
        approvals.choose_sign_in(405, None)


def test_the_facade_shares_one_context_with_its_sections(controller: SessionController) -> None:
    """A change made by one section is seen by the facade's listeners and by every other section."""
    heard: list[Change] = []
    controller.subscribe(heard.append)
    line = controller.lines.create_line("Shared")
    controller.line_settings.set_permission(line.thread_id, "full")
    assert heard == [LineCreated(key=line.thread_id), LineUpdated(key=line.thread_id)]
    assert controller.lines.line_view(line.thread_id).thread.context_state.permission_level is PermissionLevel.FULL
    assert controller.approvals.pending_approvals(line.thread_id) == []
    assert not controller.approvals.waiting_for_sign_in(line.thread_id)


# Issue 33 item 4 (as Anki's ``col.decks``): each section is a public, read-only attribute of the facade.
SECTIONS = {
    "lines": LineController,
    "providers": ProviderController,
    "agents": AgentSessionController,
    "tasks": TaskController,
    "turns": TurnController,
    "approvals": Approvals,
    "queue": FollowupQueue,
    "skills": SkillsController,
    "line_settings": LineSettingsController,
    "followups": FollowupPolicy,
    "checkpoints": CheckpointController,
    "external": ExternalLines,
}
# Facade methods named like a section's that do more than delegate: ``send`` queues on a busy line and
# follows up on a task line before it asks the turns section (issue 14, issue 31); ``close`` closes the
# external watch, then the store thread, then the store.
ORCHESTRATING = {"send", "close"}


def test_the_sections_are_public_attributes_of_the_facade(controller: SessionController) -> None:
    for name, section_type in SECTIONS.items():
        assert type(getattr(controller, name)) is section_type, name
        assert getattr(controller, name) is getattr(controller, name)  # one section, not one per read


def test_the_facade_does_not_repeat_its_sections_methods() -> None:
    """A caller reaches a section's operation through the section (``controller.turns.stop(key)``); the facade
    keeps no one-line delegation of it, so no public facade member is named like a section's public method."""
    facade = {name for name in dir(SessionController) if not name.startswith("_")}
    for name, section_type in SECTIONS.items():
        methods = {m for m, _ in inspect.getmembers(section_type, inspect.isfunction) if not m.startswith("_")}
        assert methods, name
        assert methods & facade <= ORCHESTRATING, name


def test_the_old_import_paths_still_serve() -> None:
    """The window, the CLI and the tests import these names from ``controllers.session`` and ``runs``."""
    from xworkmate.controllers import runs

    for name in session_module.__all__:
        assert hasattr(session_module, name), name
    for name in runs.__all__:
        assert hasattr(runs, name), name
