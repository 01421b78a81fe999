"""SEC-1 through the command line: an echoed API key reaches no output, message or log, and
``provider add --api-key-stdin`` touches the keyring only for an add that succeeds.

The CLI runs in-process (``xworkmate.cli.main``) so the logs can be captured and the in-memory
keyring backend stands in for the OS keyring; the provider is the real test server over HTTP.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.fixtures import Cli
from tests.support.keyring_backend import MemoryKeyring
from xworkmate import cli
from xworkmate.llm import KEYRING_SERVICE, REDACTED_KEY
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer

KEY = "sk-proj-Q7vR2mXk9LpT4wZc8NbY3hJd6FgS1aE5"
MASKED = f"{KEY[:10]}...{KEY[-8:]}"


def echo_key(status: int) -> ErrorReply:
    """What OpenAI answers to a wrong key, plus the prefix/suffix form other providers use."""
    message = f"Incorrect API key provided: {KEY}. You can find your key at {MASKED}."
    return ErrorReply(status, {"error": {"message": message, "type": "invalid_request_error"}})


def assert_no_key(text: str) -> None:
    assert KEY not in text
    pieces = [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in text]
    assert pieces == [], text


def files_holding_the_key(home: Path) -> list[Path]:
    """Every file under XWORKMATE_HOME (database, WAL, checkpoints, any log) with the key's bytes in it."""
    needles = [KEY.encode(), KEY[:10].encode(), KEY[-8:].encode()]
    return [p for p in home.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)]


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


# -- an echoed key ----------------------------------------------------------------------------


def test_an_echoed_key_is_scrubbed_from_stderr_stored_messages_and_logs(
    xw: Cli,
    home: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """SEC-1: a provider answering 500 then 401 with the key in its body.

    The failure still reaches the person (one line on stderr, a notice in the line), with the
    key replaced; no log record, message row or file under XWORKMATE_HOME holds it. The app
    writes no log file of its own today; the file scan would catch one.
    """
    monkeypatch.setenv("ECHO_TEST_KEY", KEY)
    base = ("--base-url", openai_server.base_url, "--model", "test-model", "--api-key-env", "ECHO_TEST_KEY")
    assert xw("provider", "add", "local", *base, "--default")[0] == 0
    code, out, _err = xw("thread", "new", "--json")
    assert code == 0
    line = json.loads(out)["session_key"]
    caplog.set_level(logging.DEBUG)
    openai_server.script(echo_key(500), echo_key(401))  # a retried failure is logged, then the run fails

    code, out, err = xw("run", line, "hello there")

    assert openai_server.chat_requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert code == cli.EXIT_ERROR
    assert err.count("\n") == 1 and "HTTP 401" in err and REDACTED_KEY in err
    assert_no_key(out)
    assert_no_key(err)
    retry_logs = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert retry_logs and "HTTP 500" in retry_logs[0]
    assert_no_key(caplog.text)
    for record in caplog.records:
        assert_no_key(record.getMessage())

    with sqlite3.connect(home / "xworkmate.sqlite3") as db:
        rows = db.execute("SELECT content, payload, model_visible_text FROM messages").fetchall()
    notices = [content for content, _payload, _visible in rows if "The run failed" in content]
    assert len(notices) == 1 and "HTTP 401" in notices[0] and REDACTED_KEY in notices[0]
    for content, payload, visible in rows:
        assert_no_key(f"{content} {payload} {visible}")
    assert files_holding_the_key(home) == []


def test_an_echoed_key_is_scrubbed_from_a_real_process_stderr(home: Path, openai_server: OpenAIServer) -> None:
    """SEC-1 as a person sees it: ``xworkmate run`` as its own process prints one line without the key."""
    env = {"ECHO_TEST_KEY": KEY}
    base = ("--base-url", openai_server.base_url, "--model", "test-model", "--api-key-env", "ECHO_TEST_KEY")
    ok_json(home, "provider", "add", "local", *base, "--default", env=env)
    line = ok_json(home, "thread", "new")["session_key"]
    openai_server.script(echo_key(401))
    proc = run_cli(home, "run", line, "hello there", env=env)
    assert_one_line_error(proc, "HTTP 401", REDACTED_KEY)
    assert_no_key(proc.stdout + proc.stderr)
    shown = run_cli(home, "messages", line, "--json", env=env)
    assert "The run failed" in shown.stdout
    assert_no_key(shown.stdout)
    assert files_holding_the_key(home) == []


# -- a stdin key on a refused add -------------------------------------------------------------


def _add_local(xw: Cli, server: OpenAIServer, key: str, *extra: str) -> tuple[int, str, str]:
    args = ("provider", "add", "local", "--base-url", server.base_url, "--model", "test-model")
    return xw(*args, "--api-key-stdin", *extra, stdin=f"{key}\n")


def test_a_refused_add_on_an_existing_name_keeps_the_stored_key(
    xw: Cli, openai_server: OpenAIServer, memory_keyring: MemoryKeyring
) -> None:
    """SEC-1: without --replace, adding a name that exists is refused before the keyring is touched."""
    assert _add_local(xw, openai_server, "sk-original-key-0001")[0] == 0
    before = dict(memory_keyring.passwords)
    assert before == {(KEYRING_SERVICE, "local"): "sk-original-key-0001"}

    code, _out, err = _add_local(xw, openai_server, "sk-intruder-key-0002")

    assert code == cli.EXIT_ERROR and "already exists" in err
    assert memory_keyring.passwords == before
    # --replace is how a person changes the key, and it still does.
    assert _add_local(xw, openai_server, "sk-replaced-key-0002", "--replace")[0] == 0
    assert memory_keyring.passwords == {(KEYRING_SERVICE, "local"): "sk-replaced-key-0002"}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("bad", "--base-url", "ftp://x", "--model", "m"), "base_url"),
        (("bad", "--base-url", "http://127.0.0.1:1/v1?key=x", "--model", "m"), "base_url"),
        (("bad name", "--base-url", "http://127.0.0.1:1/v1", "--model", "m"), "name"),
        (("bad", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--tag", "not a label!"), "category"),
    ],
    ids=["scheme", "query", "name", "tag"],
)
def test_a_refused_add_leaves_no_key_in_the_keyring(
    xw: Cli, memory_keyring: MemoryKeyring, args: tuple[str, ...], named: str
) -> None:
    """SEC-1: an add the CLI refuses writes no orphan keyring entry (and no provider)."""
    memory_keyring.passwords[(KEYRING_SERVICE, "other")] = "sk-other-provider-key"
    before = dict(memory_keyring.passwords)

    code, _out, err = xw("provider", "add", *args, "--api-key-stdin", stdin="sk-never-stored-0003\n")

    assert code == cli.EXIT_ERROR and named in err and err.count("\n") == 1
    assert memory_keyring.passwords == before
    code, out, _err = xw("provider", "list", "--json")
    assert code == 0 and json.loads(out) == []
