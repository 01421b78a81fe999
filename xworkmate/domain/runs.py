"""What goes into a run and what comes back (SPEC ISO-6, ISO-8)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator

from xworkmate.domain.threads import ExecutionBinding, ThreadStatus, WorkspaceKind


class RunRequest(BaseModel):
    """A single-agent request. ``session_id == thread_id`` always (ISO-6)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    thread_id: str
    working_directory: str
    prompt: str
    execution: ExecutionBinding
    category: str | None = None

    @model_validator(mode="after")
    def _same_key(self) -> RunRequest:
        if self.session_id != self.thread_id:
            raise ValueError(f"session_id {self.session_id!r} differs from thread_id {self.thread_id!r}")
        return self


class ExecutionResult(BaseModel):
    """A structured result from a runner; the only runtime source of a new binding (ISO-8)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    resolved_working_directory: str | None = None
    resolved_workspace_kind: WorkspaceKind | None = None
    acp_session_id: str | None = None


class NotRunnable(Exception):
    """A line that may not execute, with the reason (ISO-4, ISO-7)."""

    def __init__(self, key: str | None, status: ThreadStatus, reason: str) -> None:
        super().__init__(f"line {key or '(no key)'} is not runnable ({status.value}): {reason}")
        self.key = key
        self.status = status
        self.reason = reason
