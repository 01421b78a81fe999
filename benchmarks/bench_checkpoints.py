"""7. Checkpoint cost per turn (LOOP-1, issue 16).

A line's folder of 10,000 files / 200 MB (random bytes, made once per run) that is also
a git repository of the person's. Each measured turn changes 3 files; its checkpoint cost
is what ``TurnRunner.run`` adds, through the calls ``CheckpointController`` makes: the snapshot
before the turn (nothing changed since the last one: no commit) and the snapshot after it with
its change set (``snapshot_and_changes``). Target (issue 34 item 3): at most 1.3x
``git status --porcelain`` on the same tree, measured alternately in the same run.

A snapshot is at most one ``git status`` of the shadow repository, whose stat cache it keeps,
and of the paths the folder's file-system events named since the last snapshot alone when
``agents.folder_watch`` (inotify in this process) can vouch for the rest: between these turns
nothing happens, so the snapshot before a turn runs no git, and the one after it is ``status`` of
the 3 paths, ``update-index``, then ``write-tree`` with ``diff-index --cached`` beside it (the
commit is written without git). Every ``WHOLE_SCAN_EVERY`` (16) turns one scans the whole folder
(for writes inotify cannot see): not within these 15 turns, so ``max_per_turn_ms`` is a partial
scan too; ``whole_scan_turn_*`` is such a turn's cost. The notes give, beside it, the turns that
follow a change made by hand between turns (``after_a_hand_edit_*``): those scan before the turn too.

The first snapshot (hashing all 200 MB) goes on beside the first turn (issue 34): the notes
give how long the first turn waits for its checkpoint through the real controller
(``before_turn``) beside the first snapshot taken before the turn, as it was until then.

Every git of the checkpoints runs hardened (``agents.git_safe``, SBX-3, issue 29); the notes
also give the hardened ``git status --porcelain`` (what ``changes --uncommitted`` and a worktree
archive run: the config listing plus the call) beside the plain one. ``XW_BENCH_CHECKPOINT_FILES``
makes a smaller tree (same 20 KB per file) on a shared machine; the target holds for 10,000.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median
from xworkmate.agents import checkpoints
from xworkmate.agents.checkpoints import ShadowRepo
from xworkmate.agents.git_safe import folder_gitdir, run_git
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store

FILES = int(os.environ.get("XW_BENCH_CHECKPOINT_FILES", "10000"))
TOTAL_BYTES = FILES * (200 * 1024 * 1024 // 10_000)
TURNS = 15


def _make_tree(folder: Path) -> None:
    rng = random.Random(16)
    size = TOTAL_BYTES // FILES
    for i in range(FILES):
        sub = folder / f"d{i % 100:02d}" / f"e{i // 100 % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i:05d}.bin").write_bytes(rng.randbytes(size))


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="b",
        GIT_AUTHOR_EMAIL="b@b",
        GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@b",
        # No automatic gc after the tree's commit: with 10,000 loose objects it went on in the background,
        # packing 200 MB through the measured turns and racing the temporary folder's removal (the run
        # failed with "Directory not empty: 'objects'").
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0="gc.auto",
        GIT_CONFIG_VALUE_0="0",
    )
    return env


def _git_status(folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(folder), "status", "--porcelain"], env=_git_env(), capture_output=True, check=True)
    return (time.perf_counter() - started) * 1000


def _hardened_status(folder: Path) -> float:
    started = time.perf_counter()
    done = run_git(["status", "--porcelain"], cwd=folder, git_dir=folder_gitdir(folder), work_tree=folder)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode())
    return (time.perf_counter() - started) * 1000


def _first_turn_wait(tmp: Path, folder: Path) -> float:
    """How long the real controller's ``before_turn`` keeps the first turn of a line on ``folder`` waiting
    (a new data folder: its first snapshot); the turn then ends and waits for it, as a turn does."""
    home = tmp / "home"
    home.mkdir()
    settings = Settings(home=home, database_url=None, workspace_root=None)
    controller = SessionController(open_store(settings.effective_database_url), settings)
    try:
        key = controller.lines.create_line("bench", workspace=folder).thread_id

        async def turn() -> float:
            started_at = time.perf_counter()
            started = await controller.checkpoints.before_turn(key)
            waited = time.perf_counter() - started_at
            if started is None:
                raise RuntimeError("no checkpoint before the first turn")
            await controller.checkpoints.after_turn(started, "finished")
            return waited

        return asyncio.run(turn())
    finally:
        controller.close()


def _whole_scan_turns(repo: ShadowRepo, folder: Path, names: list[Path]) -> tuple[list[float], list[float]]:
    """Turns whose snapshot after scans the whole folder, as one in ``WHOLE_SCAN_EVERY`` does."""
    per_turn: list[float] = []
    status_ms: list[float] = []
    every = checkpoints.WHOLE_SCAN_EVERY
    checkpoints.WHOLE_SCAN_EVERY = 0
    try:
        for turn in range(3):
            started = time.perf_counter()
            before = repo.snapshot("before a turn")
            mid = time.perf_counter()
            for path in names[turn * 3 : turn * 3 + 3]:
                path.write_bytes(path.read_bytes()[::-1])
            resumed = time.perf_counter()
            _after, changes = repo.snapshot_and_changes("after a turn", before.commit)
            done = time.perf_counter()
            if before.created or len(changes) != 3:
                raise RuntimeError(f"a whole-scan turn: expected 3 changed files and no before-commit, got {changes}")
            per_turn.append((mid - started + done - resumed) * 1000)
            status_ms.append(_git_status(folder))
    finally:
        checkpoints.WHOLE_SCAN_EVERY = every
    return per_turn, status_ms


def _turns_after_a_hand_edit(repo: ShadowRepo, folder: Path, names: list[Path]) -> tuple[list[float], list[float]]:
    """Turns each preceded by one file changed by hand: the snapshot before the turn scans (and commits)."""
    per_turn: list[float] = []
    status_ms: list[float] = []
    for turn in range(5):
        edit, *work = names[turn * 4 : turn * 4 + 4]
        edit.write_bytes(edit.read_bytes()[::-1])  # by hand, between turns (not timed)
        started = time.perf_counter()
        before = repo.snapshot("before a turn")
        mid = time.perf_counter()
        for path in work:
            path.write_bytes(path.read_bytes()[::-1])
        resumed = time.perf_counter()
        _after, changes = repo.snapshot_and_changes("after a turn", before.commit)
        done = time.perf_counter()
        if not before.created or len(changes) != 3:
            raise RuntimeError(f"after a hand edit: expected a before-commit and 3 changed files, got {changes}")
        per_turn.append((mid - started + done - resumed) * 1000)
        status_ms.append(_git_status(folder))
    return per_turn, status_ms


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="xw-bench-ckpt-") as tmp:
        folder = Path(tmp) / "folder"
        t0 = time.perf_counter()
        _make_tree(folder)
        made_s = time.perf_counter() - t0
        env = _git_env()
        for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "tree")):
            subprocess.run(["git", "-C", str(folder), *args], env=env, capture_output=True, check=True)
        repo = ShadowRepo(Path(tmp) / "data" / "checkpoints" / "line.git", folder)
        t0 = time.perf_counter()
        repo.snapshot("first")
        first_s = time.perf_counter() - t0
        _git_status(folder)
        names = sorted(folder.rglob("*.bin"))
        per_turn: list[float] = []
        before_ms: list[float] = []
        after_ms: list[float] = []
        status_ms: list[float] = []
        hardened_ms: list[float] = []
        for turn in range(TURNS):
            started = time.perf_counter()
            before = repo.snapshot("before a turn")
            mid = time.perf_counter()
            for path in names[turn * 3 : turn * 3 + 3]:  # the turn's work: 3 files changed (not timed)
                path.write_bytes(path.read_bytes()[::-1])
            resumed = time.perf_counter()
            _after, changes = repo.snapshot_and_changes("after a turn", before.commit)
            done = time.perf_counter()
            if len(changes) != 3 or (before.created and turn):
                raise RuntimeError(f"turn {turn}: expected 3 changed files and no before-commit, got {changes}")
            before_ms.append((mid - started) * 1000)
            after_ms.append((done - resumed) * 1000)
            per_turn.append((mid - started + done - resumed) * 1000)
            status_ms.append(_git_status(folder))
            hardened_ms.append(_hardened_status(folder))
        whole_ms, whole_status_ms = _whole_scan_turns(repo, folder, names[TURNS * 3 : TURNS * 3 + 9])
        edited_ms, edited_status_ms = _turns_after_a_hand_edit(repo, folder, names[TURNS * 3 + 9 :])
        first_wait_s = _first_turn_wait(Path(tmp), folder)
    cost = median(per_turn)
    status = median(status_ms)
    ratio = cost / status
    print(
        f"checkpoints: {cost:.1f} ms per turn beside `git status --porcelain` {status:.1f} ms: {ratio:.2f}x;"
        f" first turn waits {first_wait_s * 1000:.0f} ms beside a first snapshot of {first_s:.2f} s"
    )
    return [
        Figure(
            name=f"checkpoints (hardened git): cost per turn, {FILES:,} files / {TOTAL_BYTES // 2**20} MB, 3 changed",
            value=cost,
            unit="ms",
            target="<= 1.3x git status",
            met=ratio <= 1.3,
            reference=median(status_ms),
            reference_label="ms median `git status --porcelain` on the same tree",
            notes={
                "ratio_to_git_status": ratio,
                "first_turn_waits_s": first_wait_s,
                "before_snapshot_median_ms": median(before_ms),
                "after_snapshot_and_diff_median_ms": median(after_ms),
                "hardened_git_status_median_ms": median(hardened_ms),
                "max_per_turn_ms": max(per_turn),
                "whole_scan_turn_median_ms": median(whole_ms),
                "whole_scan_turn_ratio_to_git_status": median(whole_ms) / median(whole_status_ms),
                "after_a_hand_edit_cost_per_turn_median_ms": median(edited_ms),
                "after_a_hand_edit_ratio_to_git_status": median(edited_ms) / median(edited_status_ms),
                "first_snapshot_s": first_s,
                "tree_made_s": made_s,
                "turns": TURNS,
            },
        )
    ]
