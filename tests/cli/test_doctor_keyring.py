"""``xworkmate doctor`` warns when provider keys are kept in a plaintext file keyring (issue 29 row 7, SBX-3)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import run_cli


def _keyring_line(home: Path, person: Path) -> str:
    proc = run_cli(home, "doctor", env={"HOME": str(person), "XDG_DATA_HOME": ""})
    assert proc.returncode == 0, proc.stderr
    [line] = [line for line in proc.stdout.splitlines() if " keyring " in f" {line} "]
    return line


def test_doctor_warns_in_one_line_when_a_plaintext_keyring_file_holds_keys(home: Path, tmp_path: Path) -> None:
    person = tmp_path / "person"
    key_file = person / ".local" / "share" / "python_keyring" / "keyring_pass.cfg"
    key_file.parent.mkdir(parents=True)
    key_file.write_text("")
    assert "plain text" not in _keyring_line(home, person)  # an empty file holds no key
    key_file.write_text("[xworkmate]\nlocal = c2stbm90LWEtcmVhbC1rZXk=\n")
    line = _keyring_line(home, person)
    assert line.startswith("!!") and f"{key_file} holds keys in plain text" in line
