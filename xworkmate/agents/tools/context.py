"""What every workspace tool takes and returns: the limits, the context (folder, sandbox, write gate) and the
outcomes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xworkmate.agents.sandbox import Sandbox, SandboxPolicy
from xworkmate.agents.write_gate import EvidenceMessage, WriteGate
from xworkmate.domain.skills import Skill

_KIB = 1024
_MIB = 1024 * 1024
_BINARY_SNIFF_BYTES = 8 * _KIB
_READ_CHUNK = 64 * _KIB
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class ToolLimits:
    """Caps that keep one tool call from flooding the model's context or the process's memory."""

    list_max_entries: int = 500
    read_max_chars: int = 128 * _KIB
    read_default_lines: int = 2000
    read_max_line_chars: int = 2000
    search_max_matches: int = 200
    search_max_files: int = 20_000
    search_max_file_bytes: int = 4 * _MIB
    search_max_line_chars: int = 300
    write_max_bytes: int = 8 * _MIB
    diff_max_file_bytes: int = 1 * _MIB
    diff_max_chars: int = 64 * _KIB
    command_output_bytes: int = 64 * _KIB
    command_default_timeout_s: float = 120.0
    command_max_timeout_s: float = 1800.0
    # After SIGTERM to the process group, how long before SIGKILL.
    command_kill_grace_s: float = 1.0
    # After the shell exits, how long to keep reading output that background
    # processes still write into the pipe.
    command_drain_grace_s: float = 1.0


@dataclass(frozen=True)
class ToolContext:
    """What a tool call may touch: one thread's working directory, through its write gate."""

    write_gate: WriteGate
    limits: ToolLimits = field(default_factory=ToolLimits)
    # Environment for run_command; None inherits the application's environment.
    command_env: Mapping[str, str] | None = None
    # SBX-1: where run_command runs. None, or a sandbox that cannot run here, means unconfined:
    # the agent loop asks the person first (the approval card says so), headless runs refuse.
    sandbox: Sandbox | None = None
    # SKL-2: the line's selected skills, which read_skill may read (nothing else).
    skills: tuple[Skill, ...] = ()

    @classmethod
    def for_working_directory(
        cls,
        working_directory: str | os.PathLike[str],
        evidence: Callable[[], Sequence[EvidenceMessage]],
        limits: ToolLimits | None = None,
    ) -> ToolContext:
        return cls(write_gate=WriteGate(working_directory, evidence), limits=limits or ToolLimits())

    @property
    def working_directory(self) -> Path:
        return self.write_gate.working_directory

    @property
    def policy(self) -> SandboxPolicy | None:
        """SBX-2: what the line's sandbox hides, the file tools refuse too (built once per turn)."""
        return self.sandbox.policy if self.sandbox is not None else None


@dataclass(frozen=True)
class ToolResult:
    """What the model sees (``content``) plus what the UI may show (``changed_path``, ``diff``)."""

    ok: bool
    content: str
    tool_name: str
    error_kind: str | None = None
    changed_path: Path | None = None
    diff: str | None = None


@dataclass(frozen=True)
class WriteOutcome:
    path: Path
    display_path: str
    created: bool
    bytes_written: int
    evidence_message_id: int | str
    diff: str | None

    def to_tool_text(self) -> str:
        verb = "created" if self.created else "updated"
        return f"{verb} {self.display_path} ({self.bytes_written:,} bytes written)"


@dataclass(frozen=True)
class CommandOutcome:
    command: str
    exit_code: int | None
    timed_out: bool
    cancelled: bool
    timeout_s: float
    duration_s: float
    output: str
    total_output_bytes: int
    dropped_output_bytes: int
    # True when background processes kept the output pipe open after the command ended.
    output_pipe_held_open: bool = False
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.timed_out or self.cancelled)

    def to_tool_text(self) -> str:
        if self.timed_out:
            status = f"[timed out after {self.timeout_s:g} s: the command and every process it started were killed]"
        elif self.cancelled:
            status = "[cancelled: the command and every process it started were killed]"
        else:
            status = f"[exit code {self.exit_code} after {self.duration_s:.1f} s]"
        lines = [status, *(f"[{note}]" for note in self.notes)]
        lines.append(self.output if self.total_output_bytes else "(no output)")
        return "\n".join(lines)
