"""An ACP turn's answers to the agent's requests (called by the SDK): session updates become turn events,
permission requests go to the approver, and the client file system stays inside the working directory (SBX-2).
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    DeniedOutcome,
    ElicitationFormRequestMode,
    ElicitationFormSessionMode,
    ElicitationUrlRequestMode,
    ElicitationUrlSessionMode,
    PermissionOption,
    PlanUpdateItems,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from xworkmate.agents.acp.approvals import describe_acp_call, needs_acp_approval
from xworkmate.agents.acp.sessions import AcpSessionInfo
from xworkmate.agents.acp.tool_cards import _content_text, _ToolCards
from xworkmate.agents.acp.turn_state import _ToolState
from xworkmate.agents.confinement import (
    ToolError,
    display_path,
    open_confined_file,
    refuse_hidden,
    resolve_file_inside,
    resolve_inside,
)
from xworkmate.agents.events import (
    ApprovalDecision,
    ApprovalRequest,
    AssistantDelta,
    PlanUpdated,
    ThoughtDelta,
    ToolDone,
)
from xworkmate.agents.tools import ToolResult
from xworkmate.domain.elicitation import (
    ElicitationAnswer,
    ElicitationForm,
    describe_answer,
    form_from_schema,
    missing_required,
)
from xworkmate.domain.permissions import action_kind
from xworkmate.domain.secrets import redact
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.tools import ActionKind
from xworkmate.llm.events import ToolCall

log = logging.getLogger(__name__)


_READ_MAX_BYTES = 8 * 1024 * 1024


class _AgentRequests(_ToolCards):
    """The part of ``_Turn`` that answers the agent's session updates, permission requests and file requests."""

    # -- ACP client methods (called by the SDK with the agent's requests)

    def on_connect(self, conn: object) -> None:
        return None

    def _ours(self, session_id: str) -> bool:
        return self.session_id is None or session_id == self.session_id

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self.offers is not None and self._ours(session_id) and self.offers.on_update(update):
            return  # modes, config options, commands, usage (issue 15), during a replay too
        if self.replaying or not self._ours(session_id):
            return
        if isinstance(update, AgentMessageChunk):
            text = _content_text(update.content)
            if text:
                self.parts.append(text)
                self.emit(AssistantDelta(text))
        elif isinstance(update, AgentThoughtChunk):
            text = _content_text(update.content)
            if text:
                self.emit(ThoughtDelta(text))
        elif isinstance(update, ToolCallStart | ToolCallProgress):
            self._tool_update(update)
        elif isinstance(update, AgentPlanUpdate):
            self.emit(PlanUpdated(tuple((e.content, str(e.status)) for e in update.entries)))
        elif isinstance(update, AgentPlanContentUpdate) and isinstance(update.plan, PlanUpdateItems):
            self.emit(PlanUpdated(tuple((e.content, str(e.status)) for e in update.plan.entries)))
        elif isinstance(update, SessionInfoUpdate):
            # Issue 32 item 6: the session's title, kept for the session it names (the picker shows it).
            self.emit(AcpSessionInfo(session_id, update.title, update.updated_at))
        # user_message_chunk: nothing to show.

    async def create_elicitation(
        self,
        message: str,
        mode: ElicitationFormSessionMode
        | ElicitationFormRequestMode
        | ElicitationUrlSessionMode
        | ElicitationUrlRequestMode,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Issue 32 item 3: the agent asks the person for input (``elicitation/create``). The approver shows
        the form (the window's card; headless, ``--answer`` values or a one-line refusal); the answer goes back
        as ``accept`` with its content, ``decline`` or ``cancel``, and the conversation keeps a record."""
        session_id = getattr(mode, "session_id", None)
        if session_id is not None and not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        if self.cancelling:
            return {"action": "cancel"}
        if isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            form = ElicitationForm(message=message, url=str(mode.url), elicitation_id=mode.elicitation_id)
        else:
            schema = mode.requested_schema.model_dump(by_alias=True, exclude_none=True)
            form = form_from_schema(message, schema)
        self._elicitations += 1
        call = ToolCall(
            id=f"elicitation-{self._elicitations}",
            name="elicitation",
            arguments=json.dumps({"title": message, **({"url": form.url} if form.url else {})}),
        )
        decision = await self._ask(call, form=form)
        answer = decision.answer if decision is not None else None
        if answer is None:
            reason = decision.reason if decision is not None else "the turn was stopped"
            answer = ElicitationAnswer(action="cancel", reason=reason)
        if answer.action == "accept" and not form.is_url:
            missing = missing_required(form, answer.content or {})
            if missing:  # the card keeps Submit disabled until then; another approver must too
                answer = ElicitationAnswer(action="cancel", reason=f"no value for {', '.join(missing)}")
        record = redact(describe_answer(form, answer))  # SEC-1: the record is derived text
        ok = answer.action == "accept"
        self.emit(
            ToolDone(
                call,
                ToolResult(ok=ok, content=record, tool_name="elicitation", error_kind=None if ok else "not_answered"),
            )
        )
        if answer.action == "accept":
            return (
                {"action": "accept", "content": dict(answer.content or {})} if not form.is_url else {"action": "accept"}
            )
        return {"action": answer.action}

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        """A url-mode elicitation is done on the agent's side; the card was answered already (Done), so nothing
        waits on this."""
        log.debug("line %s: elicitation %s complete", self.request.thread_id, elicitation_id)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        tool = self.tools.get(tool_call.tool_call_id) or _ToolState(id=tool_call.tool_call_id)
        self.tools[tool.id] = tool
        tool.merge(tool_call)
        call = tool.to_call()
        outside = self._outside(tool.paths())
        if outside:
            reason = f"{describe_acp_call(call)} was refused: {outside}"
            log.warning("line %s: ACP permission request refused: %s", self.request.thread_id, reason)
            self._finish_tool(tool, ok=False, error_kind=ToolErrorKind.PATH_ESCAPE, content=reason)
            return _answer(options, allowed=False, always=False)
        if self.cancelling:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        question = action_kind(tool.kind) is ActionKind.QUESTION  # asked each time, never remembered
        remembered = None if question else self.runner.remembered(session_id, tool.kind)
        if remembered is not None:
            if not remembered:
                self._finish_tool(
                    tool, ok=False, error_kind=ToolErrorKind.NOT_APPROVED, content="rejected always for this line"
                )
            return _answer(options, allowed=remembered, always=True)
        if not needs_acp_approval(tool.kind, self.level):
            return _answer(options, allowed=True, always=False)
        diff, _changed = await asyncio.to_thread(self._diff, tool)  # off the event loop: the texts may be large
        form = self._question_form(call, tool, options) if question else None
        decision = await self._ask(call, diff=diff, form=form)
        if decision is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if form is not None and decision.answer is not None:
            # The window's card answered the question with one of the agent's own options (or dismissed it).
            chosen = (decision.answer.content or {}).get("option") if decision.answer.action == "accept" else None
            if chosen in {o.option_id for o in options}:
                return RequestPermissionResponse(outcome=AllowedOutcome(option_id=str(chosen), outcome="selected"))
            self._finish_tool(
                tool, ok=False, error_kind=ToolErrorKind.NOT_APPROVED, content="the person did not answer"
            )
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        always = decision.always and not question
        if always:
            self.runner._remembered[(session_id, tool.kind)] = decision.allowed
        if not decision.allowed:
            self._finish_tool(
                tool,
                ok=False,
                error_kind=ToolErrorKind.NOT_APPROVED,
                content=f"{describe_acp_call(call)} was not approved: {decision.reason or 'the person rejected it'}",
            )
        return _answer(options, allowed=decision.allowed, always=always)

    def _question_form(self, call: ToolCall, tool: _ToolState, options: Sequence[PermissionOption]) -> ElicitationForm:
        """A question sent as a permission request (issue 32 item 5) shown as a form card: the question (its
        title and what the agent wrote with it) and the agent's options as buttons."""
        title = describe_acp_call(call)
        text = self._tool_text(tool) if tool.content else ""
        message = f"{title}\n{text}" if text and text not in title else title
        return ElicitationForm(message=message, options=tuple((o.option_id, o.name) for o in options))

    async def _ask(
        self,
        call: ToolCall,
        unsandboxed: str | None = None,
        *,
        diff: str | None = None,
        form: ElicitationForm | None = None,
    ) -> ApprovalDecision | None:
        agent = self.agent
        assert agent is not None
        request = ApprovalRequest(
            thread_id=self.request.thread_id,
            call=call,
            summary=describe_acp_call(call),
            unsandboxed=unsandboxed,
            diff=diff,
            form=form,
        )
        task: asyncio.Task[ApprovalDecision] = asyncio.ensure_future(self.approver(request))
        self.approvals.add(task)
        try:
            with agent.paused_clock():
                await asyncio.wait({task})
        finally:
            self.approvals.discard(task)
            if not task.done():  # the connection is closing under us
                task.cancel()
        if task.cancelled():
            return None
        error = task.exception()
        if error is not None:
            log.error("the approver failed on line %s", self.request.thread_id, exc_info=error)
            return ApprovalDecision(allowed=False, reason=f"the approval failed: {error}")
        return task.result()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        target = self._confined(session_id, path)
        if target.is_dir():
            raise RequestError.invalid_params({"details": f"{path} is a directory"})
        try:
            # SBX-2: the file actually opened is checked again (hard links, a link swapped in).
            with os.fdopen(
                open_confined_file(target, display_path(self.working_directory, target), within=self.working_directory),
                "rb",
            ) as fh:
                data = fh.read(_READ_MAX_BYTES + 1)
        except ToolError as exc:
            raise self._refusal(path, exc) from None
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        except OSError as exc:
            raise RequestError.internal_error({"details": f"cannot read {path}: {exc.strerror}"}) from None
        if len(data) > _READ_MAX_BYTES:
            raise RequestError.invalid_params({"details": f"{path} is larger than {_READ_MAX_BYTES} bytes"})
        text = data.decode("utf-8", "replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        target = self._confined(session_id, path, write=True)
        shown = display_path(self.working_directory, target)
        try:
            # SBX-2: truncated only after the file actually opened passed the hard-link rule; SBX-3: missing
            # folders are made on the way, never through a link the agent swapped in meanwhile.
            fd = open_confined_file(target, shown, within=self.working_directory, write=True)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        except ToolError as exc:
            raise self._refusal(path, exc) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                detail = f"{shown} is a symbolic link"
            else:
                detail = f"cannot write {shown}: {exc.strerror or exc}"
            raise RequestError.internal_error({"details": detail}) from None
        log.info("line %s: the ACP agent wrote %s", self.request.thread_id, shown)
        return WriteTextFileResponse()

    # -- helpers

    def _check_session(self, session_id: str) -> None:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})

    def _confined(self, session_id: str, path: str, *, write: bool = False) -> Path:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        try:
            # SBX-2: outside the folder, a file with more than one hard link, or hidden by the sandbox
            # (for a write: not writable in it, SBX-3).
            target = resolve_file_inside(self.working_directory, path)
            refuse_hidden(self.policy, target, display_path(self.working_directory, target), write=write)
        except ToolError as exc:
            raise self._refusal(path, exc) from None
        return target

    def _refusal(self, path: str, exc: ToolError) -> RequestError:
        log.warning("line %s: ACP file access refused: %s", self.request.thread_id, exc)
        return RequestError(-32602, f"refused: {exc}", {"path": path, "reason": exc.kind})

    def _outside(self, paths: Sequence[str]) -> str | None:
        for path in paths:
            try:
                resolve_inside(self.working_directory, path)
            except ToolError as exc:
                return str(exc)
        return None


def _answer(options: Sequence[PermissionOption], *, allowed: bool, always: bool) -> RequestPermissionResponse:
    """The agent's option that matches a decision; "once" falls back to "always" of the same sense
    (and back), and a decision no option expresses is sent as "cancelled"."""
    if allowed:
        kinds = ("allow_always", "allow_once") if always else ("allow_once", "allow_always")
    else:
        kinds = ("reject_always", "reject_once") if always else ("reject_once", "reject_always")
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option.option_id, outcome="selected"))
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
