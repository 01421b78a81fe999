"""External agent CLIs over the Agent Client Protocol (SPEC §5 ACP mode, CAT-3).

``AcpRunner.run_turn`` spawns an agent CLI (``qwen --acp``, ``codex-acp``…)
with its working directory set to the line's working directory, speaks ACP to
it over stdio with the SDK's client side, and turns what the agent reports into
the same turn events the native loop emits (``agents.events``). It persists
nothing: the controller stores messages and keeps the agent's session id.

What the agent may do through us is confined to the working directory: the
client file system (``fs/read_text_file``, ``fs/write_text_file``) resolves
every path with ``confinement.resolve_inside``, and a permission request whose
locations lead outside is rejected without asking anyone. Terminals
(``terminal/*``, ``terminals``) run in the line's folder under the line's
sandbox and the permission rules of the native ``run_command``, and none
outlives the turn.

Every way a turn can end reaps the child process: the turn finishing, the
caller cancelling (``session/cancel`` first, then terminate, then kill), the
agent exiting, writing something that is not JSON-RPC on stdout, or going
silent for longer than its timeout. Each failure is an ``AcpAgentError``
subclass whose one-line message names the command.
"""

from __future__ import annotations

from xworkmate.agents.acp.approvals import (
    agent_environment,
    describe_acp_call,
    needs_acp_approval,
    permission_approver,
    resolve_env_refs,
)
from xworkmate.agents.acp.errors import (
    AcpAgentError,
    AcpAgentExited,
    AcpAgentTimeout,
    AcpAuthError,
    AcpCategoryError,
    AcpCommandNotFound,
    AcpEnvironmentError,
    AcpError,
    AcpProtocolError,
    AcpRequestFailed,
    AcpWorkingDirectoryError,
    check_acp_allowed,
    command_label,
)
from xworkmate.agents.acp.reports import (
    AcpApprovalDecision,
    AcpAuthMethod,
    AcpSessionReady,
    AcpSignedIn,
    AcpTimeouts,
    AcpTurnResult,
    AuthChooser,
)
from xworkmate.agents.acp.runner import AcpRunner

__all__ = [
    "AcpAgentError",
    "AcpAgentExited",
    "AcpAgentTimeout",
    "AcpApprovalDecision",
    "AcpAuthError",
    "AcpAuthMethod",
    "AcpCategoryError",
    "AcpCommandNotFound",
    "AcpEnvironmentError",
    "AcpError",
    "AcpProtocolError",
    "AcpRequestFailed",
    "AcpRunner",
    "AcpSessionReady",
    "AcpSignedIn",
    "AcpTimeouts",
    "AcpTurnResult",
    "AcpWorkingDirectoryError",
    "AuthChooser",
    "agent_environment",
    "check_acp_allowed",
    "command_label",
    "describe_acp_call",
    "needs_acp_approval",
    "permission_approver",
    "resolve_env_refs",
]
