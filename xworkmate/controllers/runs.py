"""Turns of the native agent, as the controller runs them (SPEC §5, ISO-8, WR-1).

``TurnRunner`` turns agent events into stored messages and change records.
Messages are stored as they complete; a stopped turn keeps what streamed so
far, marked interrupted; a failed turn keeps the conversation and says why.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from xworkmate.agents.events import (
    AgentEvent,
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    AssistantDelta,
    AssistantDone,
    ProviderChosen,
    StepLimitReached,
    ToolDone,
    ToolStarted,
)
from xworkmate.agents.native import NativeAgent, describe_call
from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    RunDelta,
    RunFinished,
    RunStarted,
    ToolRunning,
)

# The run change records live in controllers.changes; re-exported for older imports.
__all__ = [
    "ApprovalRequested",
    "ApprovalSettled",
    "ProviderConfigError",
    "RunDelta",
    "RunFinished",
    "RunStarted",
    "ToolRunning",
    "TurnOutcome",
    "TurnRunner",
    "default_router",
    "headless_approver",
    "provider_config",
]
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.threads import PermissionLevel
from xworkmate.llm.errors import LLMError
from xworkmate.llm.providers import ProviderConfig
from xworkmate.llm.router import ModelRouter

if TYPE_CHECKING:
    from xworkmate.controllers.session import SessionController

log = logging.getLogger(__name__)

RouterFactory = Callable[[list[ProviderConfig]], ModelRouter]


class ProviderConfigError(ValueError):
    """A stored provider that cannot be used; the message names the provider and the field."""


class TurnOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    status: Literal["finished", "step_limit", "failed", "stopped"]
    error: str | None = None
    text: str = ""
    provider: str | None = None
    model: str | None = None
    message_ids: tuple[int, ...] = ()
    refused_approvals: tuple[str, ...] = ()


def provider_config(record: ProviderRecord) -> ProviderConfig:
    try:
        return ProviderConfig(
            name=record.name,
            base_url=record.base_url or "",
            model=record.model or "",
            tags=frozenset(record.tags),
            api_key_env=record.api_key_env,
            api_key_keyring=record.api_key_keyring,
            is_default=record.is_default,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ProviderConfigError(f"provider {record.name!r}: {field}: {first['msg']}") from exc


def default_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers)


def headless_approver(level: PermissionLevel, key: str, refused: list[str]) -> Approver:
    """For ``xworkmate run``: nobody is there to approve, so what needs approval is refused."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        reason = (
            f"{request.summary} needs approval on line {key} (permission level {level.value}) and no one"
            f" is at the window; allow it with `xworkmate thread set {key} --permission full`"
            if level is PermissionLevel.AUTO_EDIT
            else f"{request.summary} needs approval on line {key} (permission level {level.value}) and no"
            f" one is at the window; allow it with `xworkmate thread set {key} --permission auto-edit`"
            " (edits) or `--permission full` (edits and commands)"
        )
        refused.append(reason)
        return ApprovalDecision(allowed=False, reason=reason)

    return approve


class TurnRunner:
    """Runs one native turn for a line and records it."""

    _approval_ids = itertools.count(1)

    def __init__(self, controller: SessionController, router_factory: RouterFactory) -> None:
        self._controller = controller
        self._router_factory = router_factory
        self._approvals: dict[int, tuple[str, asyncio.Future[ApprovalDecision]]] = {}

    # -- approvals from the window -------------------------------------------------

    def window_approver(self, key: str) -> Approver:
        async def approve(request: ApprovalRequest) -> ApprovalDecision:
            approval_id = next(self._approval_ids)
            future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
            self._approvals[approval_id] = (key, future)
            self._controller._emit(
                ApprovalRequested(
                    key=key,
                    approval_id=approval_id,
                    tool=request.call.name,
                    summary=request.summary,
                    arguments=request.call.arguments,
                )
            )
            try:
                return await future
            finally:
                self._approvals.pop(approval_id, None)

        return approve

    def pending_approvals(self, key: str) -> list[int]:
        return [aid for aid, (k, _f) in self._approvals.items() if k == key]

    def settle(self, approval_id: int, allowed: bool) -> None:
        entry = self._approvals.get(approval_id)
        if entry is None:
            raise LookupError(f"no approval {approval_id} is waiting")
        key, future = entry
        if not future.done():
            future.set_result(ApprovalDecision(allowed=allowed, reason="" if allowed else "the person rejected it"))
        self._controller._emit(ApprovalSettled(key=key, approval_id=approval_id, allowed=allowed))

    # -- the turn ---------------------------------------------------------------------

    def router(self) -> ModelRouter:
        records = [r for r in self._controller.providers() if r.kind is ProviderKind.OPENAI]
        return self._router_factory([provider_config(r) for r in records])

    async def run(
        self, request: RunRequest, *, provider: str | None, approver: Approver | None, refused: list[str]
    ) -> TurnOutcome:
        controller = self._controller
        store = controller._store
        key = request.thread_id
        thread = controller.get_thread(key)
        level = thread.context_state.permission_level
        approve = approver or self.window_approver(key)
        ids: list[int] = []
        chosen: dict[str, str | None] = {"provider": None, "model": None}

        def record(event: AgentEvent) -> None:
            if isinstance(event, AssistantDelta):
                controller._emit(RunDelta(key=key, text=event.text))
            elif isinstance(event, ProviderChosen):
                chosen.update(provider=event.provider, model=event.model)
            elif isinstance(event, AssistantDone):
                if not event.text and not event.tool_calls and event.state is MessageState.COMPLETE:
                    return
                message = store.messages.append(
                    key,
                    role=MessageRole.ASSISTANT,
                    source=MessageSource.AGENT,
                    content=event.text,
                    state=event.state,
                    payload={
                        "tool_calls": [c.to_message() for c in event.tool_calls],
                        "provider": event.provider,
                        "model": event.model,
                    },
                )
                ids.append(message.id)
                controller._emit_messages(key, (message.id,))
            elif isinstance(event, ToolStarted):
                controller._emit(ToolRunning(key=key, call_id=event.call.id, summary=describe_call(event.call)))
            elif isinstance(event, ToolDone):
                result = event.result
                message = store.messages.append(
                    key,
                    role=MessageRole.TOOL,
                    source=MessageSource.TOOL,
                    content=result.content,
                    state=MessageState.COMPLETE if result.ok else MessageState.ERROR,
                    payload={
                        "tool_call_id": event.call.id,
                        "name": event.call.name,
                        "arguments": event.call.arguments,
                        "summary": describe_call(event.call),
                        "ok": result.ok,
                        "error_kind": result.error_kind,
                        "changed_path": str(result.changed_path) if result.changed_path else None,
                        "diff": result.diff,
                    },
                )
                ids.append(message.id)
                controller._emit_messages(key, (message.id,))
            elif isinstance(event, StepLimitReached):
                notice = controller._notice(
                    key, f"Stopped after {event.steps} steps in one turn; send a follow-up to continue."
                )
                ids.append(notice)

        try:
            router = self.router()
            agent = NativeAgent(
                router=router,
                request=request,
                history=store.messages.list_for_thread(key),
                permission=level,
                approver=approve,
                emit=record,
                pinned_provider=provider,
                secret_env_names=[p.api_key_env for p in router.providers if p.api_key_env],
            )
            result = await agent.run()
        except asyncio.CancelledError:
            ids.append(
                controller._notice(key, "Stopped. What streamed so far is kept above.", MessageState.INTERRUPTED)
            )
            raise
        except (LLMError, ProviderConfigError) as exc:
            text = str(exc)
            ids.append(controller._notice(key, f"The run failed: {text}", MessageState.ERROR))
            return TurnOutcome(key=key, status="failed", error=text, message_ids=tuple(ids), **chosen)
        status: Literal["finished", "step_limit"] = "finished" if result.finished else "step_limit"
        return TurnOutcome(
            key=key,
            status=status,
            text=result.text,
            message_ids=tuple(ids),
            refused_approvals=tuple(refused),
            **chosen,
        )
