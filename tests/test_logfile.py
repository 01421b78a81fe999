"""ERR-1 / SEC-1: the log file keeps tracebacks and never a key."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from xworkmate.domain.secrets import register_secret
from xworkmate.logfile import install_log_file, log_file_path


def test_the_log_keeps_the_traceback_and_redacts_every_kind_of_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered = "plain-looking-key-0123456789"
    from_env = "env-held-secret-abcdefgh"
    shaped = "sk-proj-ABCDEFGHIJKLMNOP"
    register_secret(registered)
    monkeypatch.setenv("SOME_API_KEY", from_env)
    path = install_log_file(tmp_path)
    assert path == log_file_path(tmp_path) == tmp_path / "logs" / "xworkmate.log"
    logger = logging.getLogger("xworkmate.test")
    try:
        raise RuntimeError(f"provider said: bad key {registered} / {from_env} / {shaped} / Bearer abcdefghijklmnop")
    except RuntimeError:
        logger.error("request failed for %s", shaped, exc_info=True)
    text = path.read_text()
    assert "Traceback" in text and "RuntimeError: provider said: bad key" in text
    for secret in (registered, from_env, shaped, "abcdefghijklmnop"):
        assert secret not in text
    assert text.count("[redacted]") >= 5


def test_a_log_that_cannot_be_written_stays_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the logs folder should be")
    assert install_log_file(blocked) is None
    logging.getLogger("xworkmate.test").error("nothing to see")
    assert "Logging error" not in capsys.readouterr().err
