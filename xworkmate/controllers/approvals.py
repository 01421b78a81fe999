"""Approval and sign-in cards: what a running turn waits on the person for (SPEC §5, issue 15).

``Approvals`` is the approvals section of ``SessionController``. A turn's approver
and sign-in chooser come from here; the window's cards answer through ``settle``
and ``choose_sign_in``. The "Always" rule is ``domain.permissions.raised_level``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    LineUpdated,
    SignInMethod,
    SignInRequested,
    SignInSettled,
    SignInTerminalOpened,
    SignInTerminalView,
)
from xworkmate.controllers.context import ControllerContext
from xworkmate.domain.change_preview import change_preview, diff_preview, edited_path, read_current
from xworkmate.domain.elicitation import ElicitationAnswer
from xworkmate.domain.threads import ExecutionMode, PermissionLevel, TaskThread

if TYPE_CHECKING:
    from xworkmate.agents.events import ApprovalDecision, ApprovalRequest, Approver

log = logging.getLogger(__name__)


class Approvals:
    """The approvals and sign-ins waiting on the person, per line. ``set_permission`` raises a native
    line's level for "Always"."""

    _approval_ids = itertools.count(1)

    def __init__(self, ctx: ControllerContext, *, set_permission: Callable[[str, PermissionLevel], TaskThread]) -> None:
        self._ctx = ctx
        self._set_permission = set_permission
        self._approvals: dict[int, tuple[str, str, asyncio.Future[ApprovalDecision]]] = {}
        self._sign_ins: dict[int, tuple[str, asyncio.Future[str | None]]] = {}

    def window_approver(self, key: str) -> Approver:
        async def approve(request: ApprovalRequest) -> ApprovalDecision:
            approval_id = next(self._approval_ids)
            future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
            self._approvals[approval_id] = (key, request.call.name, future)
            try:
                try:
                    requested = await self._requested(key, approval_id, request)
                except Exception:  # the card still asks, with the summary and arguments only
                    log.exception("the approval card's preview failed on line %s", key)
                    requested = self._plain_request(key, approval_id, request)
                self._ctx.emit(requested)
                return await future
            finally:
                self._approvals.pop(approval_id, None)

        return approve

    async def _requested(self, key: str, approval_id: int, request: ApprovalRequest) -> ApprovalRequested:
        """The card's facts (issue 30 item 3): the line's folder and network from the store, and what a write
        would change, read from the disk; both off the event loop, so the window never waits on them."""
        thread = await self._ctx.store_thread.call(lambda: self._ctx.store.threads.get(self._ctx.canonical(key)))
        plain = self._plain_request(key, approval_id, request)
        if thread is None:
            return plain
        folder = thread.workspace_binding.path
        call = request.call
        change = None
        path = edited_path(call.name, call.arguments)
        if request.diff:  # an ACP agent's edit: the diff it sent
            diff = request.diff
            change = await asyncio.to_thread(lambda: diff_preview(diff))
        elif path is not None and folder is not None:
            change = await asyncio.to_thread(
                lambda: change_preview(call.name, call.arguments, read_current(folder, path))
            )
        state = thread.context_state
        return dataclasses.replace(
            plain, change=change, folder=folder, network=state.network.value, allowed_hosts=state.allowed_hosts
        )

    @staticmethod
    def _plain_request(key: str, approval_id: int, request: ApprovalRequest) -> ApprovalRequested:
        return ApprovalRequested(
            key=key,
            approval_id=approval_id,
            tool=request.call.name,
            summary=request.summary,
            arguments=request.call.arguments,
            unsandboxed=request.unsandboxed,
            form=request.form,
        )

    def window_sign_in(self, key: str, agent: str) -> Callable[[tuple[Any, ...]], Awaitable[str | None]]:
        """Issue 15: the agent needs a sign-in and offers several methods; the window's card picks one."""

        async def choose(methods: tuple[Any, ...]) -> str | None:
            request_id = next(self._approval_ids)
            future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            self._sign_ins[request_id] = (key, future)
            shown = tuple(
                SignInMethod(m.id, m.name, m.description, m.command, opens_terminal=m.runs_in_terminal) for m in methods
            )
            self._ctx.emit(SignInRequested(key=key, request_id=request_id, agent=agent, methods=shown))
            self._ctx.emit(LineUpdated(key=key))  # its status now says "needs sign-in"
            try:
                return await future
            finally:
                self._sign_ins.pop(request_id, None)
                chosen = future.result() if future.done() and not future.cancelled() else None
                self._ctx.emit(SignInSettled(key=key, request_id=request_id, method_id=chosen))
                self._ctx.emit(LineUpdated(key=key))

        return choose

    def window_login(self, key: str, agent: str) -> Callable[[SignInTerminalView], None]:
        """Issue 32 item 4: the agent's login program runs; the window shows its terminal for the person."""

        def show(terminal: SignInTerminalView) -> None:
            self._ctx.emit(SignInTerminalOpened(key=key, agent=agent, terminal=terminal))

        return show

    def choose_sign_in(self, request_id: int, method_id: str | None) -> None:
        entry = self._sign_ins.get(request_id)
        if entry is None:
            raise LookupError(f"no sign-in {request_id} is waiting")
        _key, future = entry
        if not future.done():
            future.set_result(method_id)

    def waiting_for_sign_in(self, key: str) -> bool:
        key = self._ctx.canonical(key)
        return any(k == key for k, _f in self._sign_ins.values())

    def pending_approvals(self, key: str) -> list[int]:
        key = self._ctx.canonical(key)
        return [aid for aid, (k, _tool, _f) in self._approvals.items() if k == key]

    def settle(self, approval_id: int, allowed: bool, *, always: bool = False) -> tuple[str, str]:
        """Answer an approval card, with no store call: the waiting tool goes on as soon as the person
        answered (issue 19, LOOP-4). Returns the line's key and the tool answered.

        ``always`` (allowed only) stops asking for this kind of action on the line: an ACP agent
        remembers it for its session (``ApprovalDecision.always``); a native line's level is raised
        by ``raise_for_always``, a stored write the window runs as an operation afterwards.
        """
        entry = self._approvals.get(approval_id)
        if entry is None:
            raise LookupError(f"no approval {approval_id} is waiting")
        key, tool, future = entry
        from xworkmate.agents.events import ApprovalDecision  # the agent code loads with the first turn

        decision = ApprovalDecision(
            allowed=allowed, reason="" if allowed else "the person rejected it", always=allowed and always
        )
        if not future.done():
            future.set_result(decision)
        self._ctx.emit(ApprovalSettled(key=key, approval_id=approval_id, allowed=allowed))
        return key, tool

    def answer_form(self, approval_id: int, answer: ElicitationAnswer) -> str:
        """Answer a form card (issue 32 item 3): the agent gets ``answer`` at once. Returns the line's key."""
        entry = self._approvals.get(approval_id)
        if entry is None:
            raise LookupError(f"no question {approval_id} is waiting")
        key, _tool, future = entry
        from xworkmate.agents.events import ApprovalDecision  # the agent code loads with the first turn

        accepted = answer.action == "accept"
        decision = ApprovalDecision(
            allowed=accepted, reason="" if accepted else f"the person answered {answer.action}", answer=answer
        )
        if not future.done():
            future.set_result(decision)
        self._ctx.emit(ApprovalSettled(key=key, approval_id=approval_id, allowed=accepted))
        return key

    def raise_for_always(self, key: str, tool: str) -> TaskThread | None:
        """ "Always for this line" on a native line: its permission level raised just enough for ``tool``
        to stop waiting (writes → ``auto-edit``, commands → ``full``; ``domain.permissions.raised_level``).
        Nothing on a line an ACP agent runs (its runner remembers the answer) or already high enough;
        ``None`` then."""
        from xworkmate.domain.permissions import raised_level

        thread = self._ctx.get_thread(key)
        if thread.execution_binding.mode is ExecutionMode.ACP:
            return None
        current = thread.context_state.permission_level
        wanted = raised_level(current, tool)
        return None if wanted is current else self._set_permission(key, wanted)
