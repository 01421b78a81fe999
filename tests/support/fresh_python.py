"""A fresh interpreter running a probe script: what a start loads, and how, is seen only in a new process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping


def fresh_python(code: str, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c code args…`` offscreen, without the caller's ``XWORKMATE_*`` settings, plus ``env``; its
    output captured as text (two minutes at most)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**clean, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
