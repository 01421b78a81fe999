"""What can go wrong with an ACP agent: each failure an ``AcpAgentError`` subclass whose one-line message names the
command; and ACP's place in the categories (CAT-3).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from acp import RequestError


class AcpError(Exception):
    """Anything that stops an ACP turn; the message is one line, fit for a notice or the CLI."""


class AcpCategoryError(AcpError):
    """A category line may not use an external agent CLI (CAT-3)."""

    def __init__(self, category: str) -> None:
        super().__init__(
            f"this line carries category {category}: its content may only reach providers tagged {category},"
            " and external agent CLIs do not go through the router"
        )
        self.category = category


class AcpEnvironmentError(AcpError):
    """An environment reference of an ACP provider cannot be resolved."""


class AcpAgentError(AcpError):
    """The agent process could not be started, failed, or broke the protocol."""

    def __init__(self, command: Sequence[str], message: str) -> None:
        super().__init__(message)
        self.command = tuple(command)


class AcpAttachmentRefused(AcpAgentError):
    """ATT-1: the agent's ``promptCapabilities`` do not take what the person attached (an image)."""

    def __init__(self, command: Sequence[str], detail: str) -> None:
        super().__init__(command, f"ACP agent {command_label(command)} {detail}")


class AcpCommandNotFound(AcpAgentError):
    def __init__(self, command: Sequence[str], detail: str) -> None:
        super().__init__(command, f"ACP agent command {command_label(command)} not found: {detail}")


class AcpWorkingDirectoryError(AcpAgentError):
    def __init__(self, command: Sequence[str], detail: str) -> None:
        super().__init__(command, f"cannot start ACP agent {command_label(command)}: {detail}")


class AcpAgentExited(AcpAgentError):
    def __init__(self, command: Sequence[str], returncode: int | None, phase: str, stderr: str) -> None:
        if returncode is None:
            how = "closed its output"
        elif returncode < 0:
            how = f"was killed by signal {-returncode}"
        else:
            how = f"exited with code {returncode}"
        tail = f": {stderr}" if stderr else ""
        super().__init__(command, f"ACP agent {command_label(command)} {how} during {phase}{tail}")
        self.returncode = returncode
        self.phase = phase
        self.stderr = stderr


class AcpProtocolError(AcpAgentError):
    def __init__(self, command: Sequence[str], phase: str, detail: str) -> None:
        super().__init__(command, f"ACP agent {command_label(command)} broke the protocol during {phase}: {detail}")
        self.phase = phase


class AcpAgentTimeout(AcpAgentError):
    def __init__(self, command: Sequence[str], phase: str, seconds: float, *, idle: bool) -> None:
        what = f"sent nothing for {seconds:g} s" if idle else f"did not answer within {seconds:g} s"
        super().__init__(command, f"ACP agent {command_label(command)} {what} during {phase}")
        self.phase = phase
        self.seconds = seconds


class AcpRequestFailed(AcpAgentError):
    """The agent answered one of our requests with a JSON-RPC error (e.g. authentication required)."""

    def __init__(self, command: Sequence[str], method: str, error: RequestError) -> None:
        detail = str(error)
        if isinstance(error.data, dict) and error.data.get("details"):
            detail = f"{detail} ({error.data['details']})"
        hint = ""
        if error.code == -32000:
            hint = f"; sign in by running {command_label(command)} once in a terminal"
        super().__init__(
            command, f"ACP agent {command_label(command)} refused {method}: {detail} (code {error.code}){hint}"
        )
        self.method = method
        self.code = error.code


class AcpAuthError(AcpAgentError):
    """Signing in to the agent failed or needs a choice no one can make here (issue 15)."""


# JSON-RPC error code of "authentication required" (the SDK's RequestError.auth_required).
AUTH_REQUIRED = -32000


def check_acp_allowed(category: str | None) -> None:
    """Refuse ACP for a category line or task: its content may only reach tagged providers (CAT-3)."""
    if category is not None:
        raise AcpCategoryError(category)


def command_label(command: Sequence[str]) -> str:
    """How an agent's command is named in its errors: backquoted, cut to 80 characters."""
    text = shlex.join(command) if command else "(empty command)"
    return f"`{text if len(text) <= 80 else text[:77] + '...'}`"
