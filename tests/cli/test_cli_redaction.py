"""SEC-1 through the command line, as real processes on both databases (issue 29, "Secrets and text
that leave XWorkmate" 1 and 2).

A person pastes their own provider key (a shape no common format knows: only the configured
provider says it is a key) and a GitHub token into their first message; the model answers with an
AWS key id, an OpenSSH private key and terminal control sequences. The stored message keeps what
was typed; everything derived from it (``search`` and its index, ``messages``, the line's title in
``thread list``, ``export``) shows ``[redacted]``, and an export printed to a terminal or a pipe
cannot drive it.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.checkpoints.test_turn_checkpoints import call, full_line, run
from tests.cli.test_cli import ok_json, run_cli
from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import needs_bwrap
from xworkmate.domain.export import LineExport
from xworkmate.domain.secrets import REDACTED
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply

OWN_KEY = "Zq81-plain-Kx7Lm2Nb5Vc8Xz3Wq"  # the configured provider's key: no common format
GITHUB = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zCd7e"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
TYPED = f"deploy the billing service with key {OWN_KEY} and token {GITHUB}"
OSC52 = "\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07"  # writes the person's clipboard
OSC0 = "\x1b]0;owned\x07"  # sets the window title
CLEAR = "\x1b[2J"  # clears the screen
C1_CSI = "\u009b2J"  # the one-character CSI
ANSWER = f"Deployed. I also found {AWS_ID} and\n{PRIVATE_KEY}\nin the repo.{OSC52}{OSC0}{CLEAR}{C1_CSI}\tdone"
# Every token of a secret that search would index: none may be a search term.
SECRET_WORDS = [
    "zq81",
    "kx7lm2nb5vc8xz3wq",
    GITHUB.lower(),
    AWS_ID.lower(),
    "b3blbnnzac1rzxktdjeaaaaabg5vbmuaaaaebm9uzqaaaaaaaaabaaaamwaaaatzc2gtzw",
]


def assert_no_secret(output: str) -> None:
    for secret in (OWN_KEY, GITHUB, AWS_ID, "BEGIN OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXkt"):
        assert secret not in output, output


@pytest.fixture
def line(home: Path, database_url: str, openai_server: OpenAIServer) -> Iterator[tuple[str, dict[str, str]]]:
    """A line whose first message (through ``run``, as a person sends it) carries the secrets."""
    env = {"REDACTION_TEST_KEY": OWN_KEY, "XWORKMATE_DATABASE_URL": database_url}
    base = ("--base-url", openai_server.base_url, "--model", "test-model", "--api-key-env", "REDACTION_TEST_KEY")
    assert run_cli(home, "provider", "add", "local", *base, "--default", env=env).returncode == 0
    key = ok_json(home, "thread", "new", env=env)["session_key"]
    openai_server.script(TextReply([ANSWER]))
    proc = run_cli(home, "run", key, TYPED, env=env)
    assert proc.returncode == 0, proc.stderr
    yield key, env


def _rows(database_url: str, sql: str) -> list[Any]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(text(sql)))
    finally:
        engine.dispose()


def test_a_pasted_key_is_stored_as_typed_and_redacted_in_search_messages_and_titles(
    home: Path, database_url: str, line: tuple[str, dict[str, str]]
) -> None:
    """SEC-1: ``search`` (text and JSON), ``messages`` (text and JSON) and ``thread list`` (the title came
    from the message) show ``[redacted]``; the stored message is what the person typed."""
    key, env = line
    [(stored,)] = _rows(database_url, "SELECT content FROM messages WHERE role = 'user'")
    assert stored == TYPED

    found = run_cli(home, "search", "billing", env=env)
    assert found.returncode == 0, found.stderr
    assert (
        "  #1 user " in found.stdout
        and f"deploy the [billing] service with key {REDACTED} and token {REDACTED}\n" in found.stdout
    )
    assert f"deploy the [billing] service with key {REDACTED} and token… ({key})" in found.stdout  # the title
    assert_no_secret(found.stdout)
    assert_no_secret(json.dumps(ok_json(home, "search", "deployed", env=env)))

    shown = run_cli(home, "messages", key, env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"user/human: deploy the billing service with key {REDACTED} and token {REDACTED}" in shown.stdout
    assert_no_secret(shown.stdout)
    assert_no_secret(json.dumps(ok_json(home, "messages", key, env=env)))

    listed = run_cli(home, "thread", "list", env=env)
    assert f"deploy the billing service with key {REDACTED} and token…" in listed.stdout
    assert_no_secret(listed.stdout + json.dumps(ok_json(home, "thread", "list", env=env)))
    [(title,)] = _rows(database_url, f"SELECT title FROM threads WHERE thread_id = '{key}'")
    assert OWN_KEY not in title and REDACTED in title  # derived text: redacted before it was stored


def test_a_search_for_a_pasted_key_finds_nothing_and_the_index_holds_none_of_it(
    home: Path, database_url: str, line: tuple[str, dict[str, str]]
) -> None:
    """SEC-1: the index is made from the redacted text (both databases), so no word of a key is a term."""
    _key, env = line
    for query in (
        OWN_KEY,
        "kx7lm2nb5vc8xz3wq",
        GITHUB,
        AWS_ID,
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    ):
        proc = run_cli(home, "search", query, env=env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("no matches for") and len(proc.stdout.splitlines()) == 1, proc.stdout
    sqlite = database_url.startswith("sqlite")
    terms = [
        row[0]
        for row in _rows(
            database_url, "SELECT terms FROM message_search" if sqlite else "SELECT terms::text FROM message_search"
        )
    ]
    assert len(terms) == 2 and all("redacted" in t for t in terms)
    for word in SECRET_WORDS:
        assert not any(word in t for t in terms), (word, terms)


def test_export_redacts_every_key_format_in_every_format(
    home: Path, tmp_path: Path, line: tuple[str, dict[str, str]]
) -> None:
    """SEC-1: Markdown and JSON, to stdout and to a file: no configured key, token, AWS id or private key."""
    key, env = line
    outputs = []
    for fmt in ("md", "json"):
        proc = run_cli(home, "export", key, "--format", fmt, env=env)
        assert proc.returncode == 0, proc.stderr
        target = tmp_path / f"line.{fmt}"
        assert run_cli(home, "export", key, "--format", fmt, "-o", str(target), env=env).returncode == 0
        outputs += [proc.stdout, target.read_text(encoding="utf-8")]
    for output in outputs:
        assert_no_secret(output)
        assert output.count(REDACTED) >= 4
    exported = LineExport.model_validate_json(outputs[3])
    assert exported.root.messages[0].content == f"deploy the billing service with key {REDACTED} and token {REDACTED}"


def test_export_to_stdout_escapes_terminal_control_sequences_and_a_file_keeps_them(
    home: Path, tmp_path: Path, line: tuple[str, dict[str, str]]
) -> None:
    """SEC-1: ``export --format md`` to stdout cannot write the clipboard (OSC 52), set the title (OSC 0)
    or clear the screen (CSI 2J); JSON to stdout stays valid and reads back the same; ``-o FILE`` is exact."""
    key, env = line
    md = run_cli(home, "export", key, "--format", "md", env=env).stdout
    assert "\x1b" not in md and "\x9b" not in md and "\x07" not in md
    assert "\\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\\x07\\x1b]0;owned\\x07\\x1b[2J\\x9b2J\tdone" in md  # a tab stays

    as_json = run_cli(home, "export", key, "--format", "json", env=env).stdout
    assert "\x1b" not in as_json and "\x9b" not in as_json and as_json.isascii()
    assert (
        LineExport.model_validate_json(as_json).root.messages[1].content.endswith(f"{OSC52}{OSC0}{CLEAR}{C1_CSI}\tdone")
    )

    target = tmp_path / "line.md"
    assert run_cli(home, "export", key, "--format", "md", "-o", str(target), env=env).returncode == 0
    assert f"{OSC52}{OSC0}{CLEAR}{C1_CSI}\tdone" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_export_to_a_real_terminal_escapes_control_sequences(home: Path, line: tuple[str, dict[str, str]]) -> None:
    """The same on a pseudo-terminal (the person's terminal): no escape byte reaches it."""
    key, env = line
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    full_env.update({"XWORKMATE_HOME": str(home), **env})
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "export", key, "--format", "md"],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.PIPE,
        env=full_env,
    )
    os.close(terminal)
    seen = bytearray()
    try:
        while True:
            ready, _, _ = select.select([controller], [], [], 30)
            assert ready, "the export did not finish"
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the process closed its end
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(controller)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    shown = seen.decode("utf-8")
    assert "# deploy the billing service" in shown
    assert "\x1b" not in shown and "\x07" not in shown and "\\x1b]52;c;" in shown
    assert_no_secret(shown)


@needs_bwrap
def test_changes_patch_shows_the_control_sequences_an_agent_wrote_as_escapes(
    sqlite_store: Store, settings: Settings, openai_server: OpenAIServer, home: Path
) -> None:
    """``changes --patch`` prints file contents the agent wrote: their OSC 52 and CSI 2J are escaped too."""
    agent = scripted_controller(sqlite_store, settings, openai_server)
    key, _folder = full_line(agent)
    content = f"x{OSC52}{CLEAR}\ty\n"
    openai_server.script(
        ToolCallReply([call("write_file", "w", path="evil.txt", content=content, quote="create evil.txt")]),
        TextReply(["done"]),
    )
    run(agent, key, "please create evil.txt")
    patch = run_cli(home, "changes", key, "--patch")
    assert patch.returncode == 0, patch.stderr
    assert "\x1b" not in patch.stdout and "\x07" not in patch.stdout
    assert "+x\\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\\x07\\x1b[2J\ty\n" in patch.stdout


def test_a_task_titled_from_its_goal_carries_no_key(home: Path) -> None:
    """A task's default title is made from its goal: derived text, redacted before it is stored (SEC-1)."""
    key = ok_json(home, "thread", "new")["session_key"]
    task = ok_json(home, "task", "start", "--from", key, "--goal", f"rotate {GITHUB} tonight")
    [(stored,)] = _rows(
        f"sqlite:///{home / 'xworkmate.sqlite3'}",
        f"SELECT title FROM threads WHERE thread_id = '{task['session_key']}'",
    )
    assert stored == task["title"] == f"Task: rotate {REDACTED} tonight"
