"""The agent's environment (``env:`` references resolved) and its permission requests: which need a person's
approval at a line's level, and how a call is described to them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from xworkmate.agents.acp.errors import AcpEnvironmentError
from xworkmate.agents.events import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
)
from xworkmate.agents.native import command_environment
from xworkmate.domain.elicitation import ElicitationAnswer, content_from_answers, describe_form
from xworkmate.domain.permissions import action_kind, needs_approval
from xworkmate.domain.secrets import register_secret
from xworkmate.domain.threads import PermissionLevel
from xworkmate.domain.tools import ActionKind
from xworkmate.llm.events import ToolCall


def resolve_env_refs(refs: Sequence[tuple[str, str]], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``ProviderRecord.acp_env_refs`` → values: ``env:NAME`` reads our environment, ``keyring:ENTRY``
    the OS keyring (service ``xworkmate``). Secrets never come from the database (SPEC §7)."""
    source = os.environ if environ is None else environ
    resolved: dict[str, str] = {}
    for name, ref in refs:
        scheme, _, target = ref.partition(":")
        if scheme == "env" and target:
            value = source.get(target)
            if not value:
                raise AcpEnvironmentError(f"{name} for the agent comes from ${target}, which is not set")
        elif scheme == "keyring" and target:
            import keyring

            from xworkmate.llm.providers import KEYRING_SERVICE

            try:
                value = keyring.get_password(KEYRING_SERVICE, target)
            except Exception as exc:  # any backend failure: say which entry
                raise AcpEnvironmentError(f"{name} for the agent: cannot read keyring entry {target!r}: {exc}") from exc
            if not value:
                raise AcpEnvironmentError(f"{name} for the agent: the keyring has no entry {target!r}")
        else:
            # The reference is not echoed: someone may have pasted the secret itself.
            raise AcpEnvironmentError(f"{name} for the agent: its reference is neither env:NAME nor keyring:ENTRY")
        register_secret(value)  # SEC-1: the agent's own keys are redacted from every derived text too
        resolved[name] = value
    return resolved


def agent_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The agent's environment: ours without anything that looks like a secret, plus ``extra``."""
    env = command_environment()
    env.update(extra or {})
    return env


def needs_acp_approval(kind: str, level: PermissionLevel) -> bool:
    """Which permission requests of an agent go to a person, by the line's permission level.

    The native loop's rule (domain/permissions.py): reads never wait; ``auto-edit``
    lets edits through; ``full`` lets everything through. Locations outside the
    working directory are refused before this is asked.
    """
    return needs_approval(kind, level)


def permission_approver(
    level: PermissionLevel, *, refused: list[str] | None = None, answers: Mapping[str, str] | None = None
) -> Approver:
    """Answers for ``xworkmate run``, where no one is at the window to approve.

    ``full`` allows; ``auto-edit`` allows edits (ACP kinds edit/delete/move) and
    refuses the rest (execute, fetch…); ``ask`` refuses, saying how to allow it. A question
    (``think``) is never answered here, at any level (issue 32, item 5). A form (``elicitation/create``,
    issue 32 item 3) is answered from ``answers`` (``--answer NAME=VALUE``) when they give every required
    field, else refused in one line.
    """

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        if request.form is not None and not request.form.options:  # a question's form: refused below
            decision = headless_form_answer(request, answers or {})
            if not decision.allowed and refused is not None:
                refused.append(decision.reason)
            return decision
        kind = request.call.name
        if request.unsandboxed is not None:
            # SBX-1: what cannot be contained is never run headless, whatever the permission level.
            reason = (
                f"{request.summary} was not run on line {request.thread_id}:"
                f" it cannot run in a sandbox here ({request.unsandboxed})"
            )
            if refused is not None:
                refused.append(reason)
            return ApprovalDecision(allowed=False, reason=reason)
        if not needs_approval(kind, level):
            return ApprovalDecision(allowed=True)
        key = request.thread_id
        if action_kind(kind) is ActionKind.QUESTION:
            reason = (
                f"the agent asked a question on line {key} ({request.summary}) and no one is at the window to"
                " answer it; it was not answered for you: open the line in the window, or say the answer in"
                " your next message"
            )
            if refused is not None:
                refused.append(reason)
            return ApprovalDecision(allowed=False, reason=reason)
        fix = (
            f"`xworkmate thread set {key} --permission full`"
            if level is PermissionLevel.AUTO_EDIT or action_kind(kind) is not ActionKind.EDIT
            else f"`xworkmate thread set {key} --permission auto-edit` (edits) or `--permission full`"
        )
        reason = (
            f"{request.summary} ({kind}) needs approval on line {key} (permission level {level.value})"
            f" and no one is at the window; allow it with {fix}"
        )
        if refused is not None:
            refused.append(reason)
        return ApprovalDecision(allowed=False, reason=reason)

    return approve


def headless_form_answer(request: ApprovalRequest, answers: Mapping[str, str]) -> ApprovalDecision:
    """An agent's form with no one at the window: ``accept`` with the ``--answer`` values when they give every
    required field (typed per the form; a bad value is refused in one line), else ``cancel`` with one line
    saying how to give them. ``cancel``, not ``decline``: no one saw the question, so no one declined it."""
    form = request.form
    assert form is not None
    key = request.thread_id
    if form.is_url:
        reason = (
            f"the agent asked for input on line {key} ({form.message}: open {form.url}) and no one is at the window;"
            " open the line in the window to answer it"
        )
        return ApprovalDecision(allowed=False, reason=reason, answer=ElicitationAnswer("cancel", reason=reason))
    try:
        content = content_from_answers(form, answers)
    except ValueError as exc:
        reason = f"--answer {exc} (the agent asked on line {key}: {form.message})"
        return ApprovalDecision(allowed=False, reason=reason, answer=ElicitationAnswer("cancel", reason=reason))
    if content is None:
        wanted = " ".join(f"--answer {f.name}=…" for f in form.fields if f.required) or "--answer NAME=VALUE"
        reason = (
            f"the agent asked for input on line {key} ({describe_form(form)}) and no one is at the window;"
            f" give it with {wanted} (it was answered cancel)"
        )
        return ApprovalDecision(allowed=False, reason=reason, answer=ElicitationAnswer("cancel", reason=reason))
    return ApprovalDecision(allowed=True, answer=ElicitationAnswer("accept", content=content))


def describe_acp_call(call: ToolCall) -> str:
    """A one-line description of an ACP tool call (its title, and where) for cards and approvals."""
    try:
        args = call.parse_arguments()
    except Exception:
        return call.name
    title = str(args.get("title") or call.name)
    locations = [str(p) for p in args.get("locations") or []]
    shown = [p for p in locations if p not in title and os.path.basename(p) not in title]
    if shown:
        more = f" +{len(shown) - 2}" if len(shown) > 2 else ""
        return f"{title} ({', '.join(shown[:2])}{more})"
    return title
