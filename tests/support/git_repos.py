"""Real git repositories for the worktree-line tests (issue 16)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    env["HOME"] = str(repo.parent)  # no global config of the machine's person
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def make_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at ``path`` on branch ``main`` with one commit of ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in (files or {"README.md": "hello\n"}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first")
    return path


def repo_state(repo: Path) -> dict[str, str]:
    """What must not change behind the person's back: HEAD, the index, the stash, every ref but new branches."""
    return {
        "head": git(repo, "rev-parse", "HEAD"),
        "symbolic": git(repo, "symbolic-ref", "HEAD"),
        "index": (repo / ".git" / "index").read_bytes().hex(),
        "status": git(repo, "status", "--porcelain"),
        "stash": git(repo, "stash", "list"),
    }
