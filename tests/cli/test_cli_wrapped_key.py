"""SEC-1 through the command line (issue 29, tried again as an attacker): a key the person pasted
wrapped over two lines, as a narrow terminal or a mail client breaks it, is still the configured key.
Only its first line was ``[redacted]``; ``messages``, ``search`` and ``export`` printed the rest."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import ok_json, run_cli
from xworkmate.testing.openai_server import OpenAIServer, TextReply

OWN_KEY = "Zq81-plain-Kx7Lm2Nb5Vc8Xz3Wq-Rt6Yu9Io4Pa1Sd0Fg"  # the configured provider's key: no common format
TAIL = OWN_KEY[20:]
TYPED = f"deploy the billing service with key {OWN_KEY[:20]}\n{TAIL} please"


def test_a_configured_key_pasted_over_two_lines_is_redacted_whole_in_messages_search_and_export(
    home: Path, database_url: str, openai_server: OpenAIServer
) -> None:
    env = {"REDACTION_TEST_KEY": OWN_KEY, "XWORKMATE_DATABASE_URL": database_url}
    base = ("--base-url", openai_server.base_url, "--model", "test-model", "--api-key-env", "REDACTION_TEST_KEY")
    assert run_cli(home, "provider", "add", "local", *base, "--default", env=env).returncode == 0
    key = ok_json(home, "thread", "new", env=env)["session_key"]
    openai_server.script(TextReply(["deployed"]))
    assert run_cli(home, "run", key, TYPED, env=env).returncode == 0

    for argv in (("messages", key), ("search", "billing"), ("export", key, "--format", "md")):
        proc = run_cli(home, *argv, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "billing" in proc.stdout, (argv, proc.stdout)
        assert OWN_KEY[:20] not in proc.stdout and TAIL not in proc.stdout, (argv, proc.stdout)
