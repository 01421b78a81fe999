"""``CheckpointController``: each turn's changes, revert, restore and undo (LOOP-1).

Reached as ``SessionController.checkpoints``; the contract with the changes view is
CHECKPOINT_API.md (issue 16). Every turn goes through ``TurnRunner.run``, which calls
``before_turn`` and ``after_turn`` here; the git work runs on a worker thread
(``asyncio.to_thread``), never on the event loop's.

A *dirty* folder, for restore and undo: files that differ from the last snapshot
XWorkmate took (the end of the last turn, restore or revert) — changes made by hand, or
by something outside a turn. Restore refuses them in one line; with ``force`` it
snapshots them first, so undoing the restore brings them back.

The synchronous methods below run git themselves: the window calls them off its thread.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import shutil
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from xworkmate.agents.checkpoints import (
    FolderRepo,
    GitFailed,
    HunkDoesNotApply,
    ShadowRepo,
    UnsafePath,
    split_hunks,
)
from xworkmate.agents.priority import background
from xworkmate.controllers.changes import Change, ChangesRecorded, LineCreated
from xworkmate.controllers.store_thread import StoreThread, TurnWrites
from xworkmate.domain.checkpoints import (
    DEFAULT_CHECKPOINT_RETENTION_DAYS,
    DEFAULT_MAX_FILE_BYTES,
    ChangedTurn,
    ChangeScope,
    CheckpointError,
    FileChange,
    RestoreResult,
    TurnChanges,
)
from xworkmate.domain.keys import key_to_dir_name
from xworkmate.store.checkpoints import (
    BEFORE_MISSING,
    BEFORE_NOT_EXACT,
    BEFORE_TAKING,
    CheckpointRepository,
    CheckpointTurn,
)
from xworkmate.store.repositories import utcnow
from xworkmate.terminal_text import shown

if TYPE_CHECKING:
    from xworkmate.dispatch.service import DispatchService
    from xworkmate.domain.threads import TaskThread
    from xworkmate.settings import Settings
    from xworkmate.store import Store

__all__ = ["RETENTION_STATE", "CheckpointController", "CheckpointError"]

log = logging.getLogger(__name__)
_F = TypeVar("_F", bound=Callable[..., Any])

RETENTION_STATE = "checkpoint_retention_days"
FIRST_SNAPSHOT_WAIT_S = 0.25
"""How long a turn waits for its folder's first snapshot before it goes on beside it (issue 34 item 3)."""
EXCLUDES_STATE = "checkpoint_excludes:"  # + the line's key: a JSON list of gitignore patterns


_FIRST_SNAPSHOTS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="xworkmate-first-snapshot")


SMALL_FIRST_SNAPSHOT = (2_000, 32 * 2**20)
"""A first snapshot with no more files and bytes than these to hash is waited for, however busy the machine."""


def _small(files: int, size: int) -> bool:
    return files <= SMALL_FIRST_SNAPSHOT[0] and size <= SMALL_FIRST_SNAPSHOT[1]


def _before_turn(repo: ShadowRepo) -> str:
    """The snapshot before a turn of a folder snapshotted before: an agent's work (``agents.priority``)."""
    with background():
        return repo.snapshot("before a turn").commit


def _first_snapshot(repo: ShadowRepo, mark: int, scanned: Future[tuple[int, int]]) -> tuple[str, bool]:
    """A folder's first snapshot and whether it is proven to be the folder as it was at ``mark``;
    ``scanned`` gets, after the scan, how much it has to hash."""
    with background():  # an agent's work: its git below the window's CPU priority (issue 34 item 1)
        try:
            commit = repo.snapshot("before a turn", sized=lambda files, size: scanned.set_result((files, size))).commit
        finally:
            if not scanned.done():
                scanned.set_result((0, 0))
        return commit, repo.unchanged_since(mark)


def _one_line(method: _F) -> _F:
    """Git or the file system failing under a request: one line, as a ``CheckpointError``."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (GitFailed, OSError, UnsafePath) as exc:
            raise CheckpointError(_reason(exc)) from None

    return cast(_F, wrapper)


class _TasksHost(Protocol):
    """What checkpoints need of ``SessionController.tasks`` (``tasks.TaskController``)."""

    @property
    def dispatch(self) -> DispatchService: ...


class _TurnsHost(Protocol):
    """What checkpoints need of ``SessionController.turns`` (``turns.TurnController``)."""

    def is_running(self, key: str) -> bool: ...


class CheckpointHost(Protocol):
    """What checkpoints need of ``SessionController``: typed here, so this module does not import it (issue 19)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def tasks(self) -> _TasksHost: ...

    @property
    def turns(self) -> _TurnsHost: ...

    def get_thread(self, key: str) -> TaskThread: ...


class CheckpointController:
    """Checkpointed turns of every line: read their changes, revert a file or hunk, restore, undo."""

    def __init__(
        self,
        controller: CheckpointHost,
        store: Store,
        emit: Callable[[Change], None],
        *,
        notice: Callable[[str, str], Awaitable[object]] | None = None,
        note: Callable[[str, str], object] | None = None,
        store_thread: StoreThread | None = None,
    ) -> None:
        self._controller = controller
        self._store_thread = store_thread
        self._store = store
        self._emit = emit
        self._notice = notice  # a framework notice on a line, stored off the loop (LOOP-4)
        self._note = note  # what the person did to the folder, said in the conversation (called off the loop)
        self._rows = CheckpointRepository(store)
        # (key, turn) -> the folder's first snapshot, taken beside that turn and stored in its row as
        # soon as it is taken: its commit (``None``: it could not be taken)
        self._taking: dict[tuple[str, int], asyncio.Task[str | None]] = {}
        self.first_snapshot_wait_s = FIRST_SNAPSHOT_WAIT_S

    # -- where ---------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The shadow repositories' folder, under the data folder (never inside a line's folder)."""
        return self._controller.settings.home / "checkpoints"

    def _git_dir(self, key: str) -> Path:
        return self.root / f"{key_to_dir_name(key)}.git"

    def _repo(self, key: str) -> ShadowRepo:
        thread = self._controller.get_thread(key)
        if thread.workspace_binding is None:
            raise CheckpointError(f"line {thread.thread_id} has no folder")
        return ShadowRepo(
            self._git_dir(thread.thread_id),
            _unswapped(thread),
            excludes=self.excludes(thread.thread_id),
            max_file_bytes=DEFAULT_MAX_FILE_BYTES,
        )

    def _key(self, key: str) -> str:
        try:
            return self._controller.get_thread(key).thread_id
        except (LookupError, ValueError) as exc:  # an unknown or malformed key
            raise CheckpointError(str(exc).strip("'\"")) from None

    # -- settings --------------------------------------------------------------

    def excludes(self, key: str) -> list[str]:
        """The line's own exclude patterns (gitignore syntax), on top of the folder's ``.gitignore``."""
        raw = self._store.app_state.get(EXCLUDES_STATE + key)
        return list(json.loads(raw)) if raw else []

    def set_excludes(self, key: str, patterns: list[str]) -> list[str]:
        key = self._key(key)
        cleaned = [p.strip() for p in patterns if p.strip()]
        self._store.app_state.set(EXCLUDES_STATE + key, json.dumps(cleaned))
        return cleaned

    def retention_days(self) -> int:
        raw = self._store.app_state.get(RETENTION_STATE)
        return int(raw) if raw else DEFAULT_CHECKPOINT_RETENTION_DAYS

    def set_retention_days(self, days: int | str) -> int:
        try:
            value = int(days)
        except ValueError:
            raise CheckpointError(f"retention must be a whole number of days, not {days!r}") from None
        if value < 0:
            raise CheckpointError("retention must be 0 days or more")
        self._store.app_state.set(RETENTION_STATE, str(value))
        return value

    @_one_line
    def prune(self, older_than_days: int | None = None) -> list[str]:
        """Delete the checkpoints of lines archived longer ago than the retention period; their keys."""
        days = self.retention_days() if older_than_days is None else older_than_days
        if days < 0:
            raise CheckpointError("--older-than must be 0 days or more")
        cutoff = utcnow() - timedelta(days=days)
        pruned = self._rows.archived_before(cutoff)
        for key in pruned:
            shutil.rmtree(self._git_dir(key), ignore_errors=True)
            self._rows.forget(key)
        return pruned

    # -- the turn hooks (TurnRunner.run) -----------------------------------------

    async def before_turn(self, key: str, writes: TurnWrites | None = None) -> CheckpointTurn | None:
        """Snapshot the folder before a turn and number the turn; ``None`` if it cannot be (logged).

        The turn's row is written through the turn's ``writes`` (issue 33 item 2), like its messages.
        A folder's first snapshot (every file hashed: seconds for a big one) does not delay the turn
        past ``FIRST_SNAPSHOT_WAIT_S``: it goes on beside it, the row says ``taking``, and as soon as
        it is taken, while the turn runs, the row gets it, proven by the files' ctimes to be the
        folder before the turn or else marked ``not_exact`` (issue 34 item 3): a turn whose process
        dies after that can still be restored to before it.
        """
        writes = writes or self._writes()

        def prepare() -> tuple[ShadowRepo, int | None] | None:  # git off the loop (LOOP-4)
            repo = self._repo(key)
            if not repo.work_tree.is_dir():
                return None
            with background():  # an agent's work: its git below the window's CPU priority (issue 34 item 1)
                return repo, None if repo.has_snapshot() else repo.turn_mark()

        try:
            prepared = await asyncio.to_thread(prepare)
            if prepared is None:
                return None
            repo, mark = prepared
            if mark is None:
                commit = await asyncio.to_thread(_before_turn, repo)
                return await writes.read(lambda: self._rows.begin(key, commit))
            # A thread of its own, not the loop's: the turn may end on another loop (a CLI run, a test).
            scanned: Future[tuple[int, int]] = Future()
            taking = _FIRST_SNAPSHOTS.submit(_first_snapshot, repo, mark, scanned)
            await asyncio.wait([asyncio.wrap_future(taking)], timeout=self.first_snapshot_wait_s)
            if not taking.done() and scanned.done() and _small(*scanned.result()):
                # A small folder, scanned in time, only slow to hash on a busy machine: the turn waits for it.
                await asyncio.wrap_future(taking)
            if taking.done():  # taken before the turn began: exact as any other
                commit = taking.result()[0]
                return await writes.read(lambda: self._rows.begin(key, commit))
            started = await writes.read(lambda: self._rows.begin(key, "", BEFORE_TAKING))
            self._taking[(key, started.turn)] = asyncio.get_running_loop().create_task(
                self._took_first(started, taking, writes), name="first checkpoint into its row"
            )
            return started
        except Exception as exc:  # a checkpoint never stops a turn (ERR-1): git, the disk or the database said no
            log.warning("no checkpoint before the turn on %s", key, exc_info=True)
            await self._say(key, f"No checkpoint was taken before this turn ({_reason(exc)}); it cannot be restored.")
            return None

    async def after_turn(self, started: CheckpointTurn | None, status: str, writes: TurnWrites | None = None) -> None:
        """Snapshot after the turn, whatever its ending, and store its change set.

        Its row ends through the turn's ``writes``, after every message the turn queued (so the row's
        last message is the turn's), even when an earlier write failed (issue 33 item 2).
        """
        if started is None:
            return
        key = started.key
        writes = writes or self._writes()

        taking = self._taking.pop((key, started.turn), None)
        before: str | None = started.before_commit
        if taking is not None:  # the first snapshot, beside the turn: in the row before the after-snapshot
            before = await asyncio.shield(taking)

        def record() -> tuple[str, tuple[FileChange, ...]]:
            repo = self._repo(key)
            message = f"after turn {started.turn} ({status})"
            with background():  # an agent's work: its git below the window's CPU priority (issue 34 item 1)
                if before is None:  # no before: the turn's changes cannot be told
                    return repo.snapshot(message).commit, ()
                snapshot, files = repo.snapshot_and_changes(message, before)
            return snapshot.commit, files

        failed: Exception | None = None
        try:
            commit, files = await asyncio.shield(asyncio.to_thread(record))
            finish = functools.partial(self._rows.finish, key, started.turn, commit, files, status)
        except Exception as exc:
            # Issue 29 item 5: the row still ends, or the line would look mid-turn (and refuse
            # restore as "running a turn") for its whole turn limit.
            failed = exc
            finish = functools.partial(self._rows.finish, key, started.turn, None, None, status)
        row_failed: list[Exception] = []

        def end_row() -> None:
            try:
                finish()
            except Exception as exc:
                row_failed.append(exc)
                raise

        writes.write(end_row, after_failure=True)
        await asyncio.shield(writes.drained())
        failed = failed or (row_failed[0] if row_failed else None)
        if failed is not None:  # as above: the turn's own ending stands
            log.warning("no checkpoint after turn %s on %s", started.turn, key, exc_info=failed)
            await self._say(
                key,
                f"No checkpoint was taken after this turn ({_reason(failed)}); its changes are not listed,"
                " and restoring to before it still works.",
            )
            return
        self._emit(ChangesRecorded(key=key, turn=started.turn))

    async def _took_first(
        self, started: CheckpointTurn, taking: Future[tuple[str, bool]], writes: TurnWrites
    ) -> str | None:
        """The first snapshot taken beside the turn, into its row: its commit (``None``: it failed)."""
        key, turn = started.key, started.turn
        try:
            commit, exact = await asyncio.shield(asyncio.wrap_future(taking))
        except Exception as exc:
            log.warning("no first checkpoint before turn %s on %s", turn, key, exc_info=True)
            writes.write(lambda: self._rows.before_missing(key, turn), after_failure=True)
            await self._say(key, f"No checkpoint was taken before this turn ({_reason(exc)}); it cannot be restored.")
            return None
        writes.write(lambda: self._rows.set_before(key, turn, commit, exact=exact), after_failure=True)
        return commit

    def _writes(self) -> TurnWrites:
        """A turn's queue for a caller that has none (a test, the CLI's one-off turn)."""
        if self._store_thread is None:
            raise CheckpointError("checkpoints were made without the controller's store thread")
        return TurnWrites(self._store_thread)

    async def _say(self, key: str, text: str) -> None:
        """A notice on the line that its checkpoint failed; if even that fails, the log has it (ERR-1)."""
        if self._notice is None:
            return
        try:
            await self._notice(key, text)
        except Exception:
            log.warning("could not store the checkpoint notice on %s", key, exc_info=True)

    # -- reading ----------------------------------------------------------------

    @_one_line
    def changed_turns(self, key: str) -> list[ChangedTurn]:
        """Every checkpointed turn that changed files, oldest first, as its number, its last message and how
        many files: what the Changes tab's turn picker and the conversation's chips show, read after every
        turn, without the turns' file lists (``turns`` has them)."""
        return self._rows.changed_turns(self._key(key))

    def turns(self, key: str) -> list[TurnChanges]:
        """Every checkpointed turn that changed files, oldest first."""
        key = self._key(key)
        return [self._turn_changes(row) for row in self._rows.turns(key) if row.files]

    def _turn_changes(self, row: CheckpointTurn) -> TurnChanges:
        return TurnChanges(
            key=row.key,
            turn=row.turn,
            scope=ChangeScope.TURN,
            message_id=row.message_id,
            files=row.files or (),
            restorable=True,
        )

    def _with_reverted(self, changes: TurnChanges, row: CheckpointTurn) -> TurnChanges:
        """The turn's files, each marked ``reverted`` when the last checkpoint has it as before the turn
        (issue 30: after "Revert file" the list said the turn's change as if it were still there)."""
        if not changes.files:
            return changes
        repo = self._repo(row.key)
        head = repo.head()
        if head is None or head == row.after_commit:
            return changes
        still = {change.path for change in repo.changes(row.before_commit, head)}
        # A turn's stored files are not reverted: only those no longer changed are copied (a turn of 30,000 files).
        back = {"reverted": True}
        files = tuple(change if change.path in still else change.model_copy(update=back) for change in changes.files)
        return changes.model_copy(update={"files": files})

    def _said(self, key: str, text: str) -> None:
        """A line in the conversation for what the person did to the folder; the change stands if it fails."""
        if self._note is None:
            return
        try:
            self._note(key, text)
        except Exception:
            log.warning("could not store the note on %s", key, exc_info=True)

    def _row(self, key: str, turn: int | None) -> CheckpointTurn:
        row = self._rows.last(key) if turn is None else self._rows.get(key, turn)
        if row is None:
            if turn is None:
                raise CheckpointError(f"line {key} has no checkpointed turn yet")
            raise CheckpointError(f"turn {turn} is not a checkpointed turn of line {key}")
        if row.before_state == BEFORE_TAKING:
            raise CheckpointError(
                f"the checkpoint before turn {row.turn} of line {key} is still being taken (the folder's first"
                " snapshot, beside the turn); try again when it is done"
            )
        if row.before_state == BEFORE_MISSING:
            raise CheckpointError(f"no checkpoint was taken before turn {row.turn} of line {key}")
        return row

    def _span(self, key: str, scope: ChangeScope, turn: int | None) -> tuple[CheckpointTurn, str, str]:
        """The turn row and the two commits a scope compares."""
        if scope is ChangeScope.LINE:
            ends = self._rows.line_ends(key)  # two rows, not every turn's files (issue 34: a long line)
            if ends is None:
                raise CheckpointError(f"line {key} has no checkpointed turn yet")
            first, last = ends
            return last, first.before_commit, last.after_commit or last.before_commit
        row = self._row(key, turn)
        if row.after_commit is None:
            raise CheckpointError(_no_after(key, row))
        return row, row.before_commit, row.after_commit

    @_one_line
    def changes(self, key: str, scope: ChangeScope = ChangeScope.TURN, turn: int | None = None) -> TurnChanges:
        """One turn's changes (``turn`` None: the last), the whole line's, or the folder's uncommitted ones."""
        key = self._key(key)
        scope = ChangeScope(scope)
        if scope is ChangeScope.UNCOMMITTED:
            return TurnChanges(
                key=key,
                turn=0,
                scope=scope,
                message_id=None,
                files=self._folder_repo(key).changes(),
                restorable=False,
            )
        if scope is ChangeScope.TURN:
            row = self._row(key, turn)
            if row.after_commit is None and row.finished_at is not None:
                raise CheckpointError(_no_after(key, row))
            return self._with_reverted(self._turn_changes(row), row)
        row, before, after = self._span(key, scope, turn)
        files = self._repo(key).changes(before, after) if before != after else ()
        return TurnChanges(key=key, turn=row.turn, scope=scope, message_id=None, files=files, restorable=True)

    @_one_line
    def file_patch(self, key: str, path: str, scope: ChangeScope = ChangeScope.TURN, turn: int | None = None) -> str:
        """A git-style unified diff of one file ("" if binary or too large)."""
        key = self._key(key)
        scope = ChangeScope(scope)
        path = _clean_path(path)
        if scope is ChangeScope.UNCOMMITTED:
            return self._folder_repo(key).patch(path)
        change = self._changed_file(key, path, scope, turn)
        if change.too_large:
            return ""
        _, before, after = self._span(key, scope, turn)
        return self._repo(key).patch(before, after, path)

    def _changed_file(self, key: str, path: str, scope: ChangeScope, turn: int | None) -> FileChange:
        found = self.changes(key, scope, turn)
        for change in found.files:
            if change.path == path:
                return change
        where = "line" if scope is ChangeScope.LINE else f"turn {found.turn}"
        raise CheckpointError(f"{path} is not a file changed by {where} of line {key}")

    # -- changing the folder -------------------------------------------------------

    def _turn_in_progress(self, key: str) -> bool:
        """A turn runs on the line, here or in another process (the window, ``xworkmate run``).

        Another process's turn shows as its row without an after-snapshot; a row older than the
        line's turn limit (plus a minute) is a process that died mid-turn, not a running turn.
        """
        if self._controller.turns.is_running(key):
            return True
        last = self._rows.last(key)
        if last is None or last.finished_at is not None:
            return False
        limit = self._controller.get_thread(key).context_state.turn_limit_s
        return utcnow() - last.started_at < timedelta(seconds=limit + 60)

    def _refuse_running(self, key: str, what: str) -> None:
        if self._turn_in_progress(key):
            raise CheckpointError(f"line {key} is running a turn; stop it or wait for it to end before {what}")

    def _refuse_dirty(self, key: str, repo: ShadowRepo, what: str) -> None:
        if repo.differs():
            raise CheckpointError(
                f"the folder of line {key} has changes made since its last checkpoint;"
                f" use --force to {what} anyway (they are kept, and undo brings them back)"
            )

    @_one_line
    def revert_file(self, key: str, path: str, turn: int) -> None:
        """That file back to before the turn (its bytes and mode; removed if the turn added it)."""
        key = self._key(key)
        path = _clean_path(path)
        self._refuse_running(key, "reverting")
        change = self._changed_file(key, path, ChangeScope.TURN, turn)
        if change.too_large:
            raise CheckpointError(f"{path} is over the size cap, so turn {turn} kept no copy to revert to")
        repo = self._repo(key)
        row = self._row(key, turn)
        with repo.lock:
            undo = repo.snapshot(f"before reverting {path} to before turn {turn}")
            try:
                repo.restore_path(row.before_commit, path)
            except UnsafePath as exc:
                raise CheckpointError(f"cannot revert {shown(path)}: {exc}; nothing was changed") from None
            repo.snapshot(f"reverted {path} to before turn {turn}")
            repo.set_undo(undo.commit)
        self._said(key, f"Reverted {shown(path)} to how it was before turn {turn}.")
        self._emit(ChangesRecorded(key=key, turn=turn))

    @_one_line
    def revert_hunk(self, key: str, path: str, turn: int, hunk_index: int) -> None:
        """One hunk (0-based, in ``file_patch``'s order) of the turn taken back in the folder's file."""
        key = self._key(key)
        path = _clean_path(path)
        self._refuse_running(key, "reverting")
        patch = self.file_patch(key, path, ChangeScope.TURN, turn)
        header, hunks = split_hunks(patch)
        if not hunks:
            raise CheckpointError(f"{path} has no text hunks in turn {turn} (binary or too large); revert the file")
        if not 0 <= hunk_index < len(hunks):
            raise CheckpointError(f"turn {turn} changed {path} in {len(hunks)} hunk(s); there is no hunk {hunk_index}")
        repo = self._repo(key)
        with repo.lock:
            undo = repo.snapshot(f"before reverting a hunk of {path} (turn {turn})")
            try:
                repo.apply_reverse(header + hunks[hunk_index], path)
            except UnsafePath as exc:
                raise CheckpointError(f"cannot revert a hunk of {shown(path)}: {exc}; nothing was changed") from None
            except HunkDoesNotApply:
                raise CheckpointError(
                    f"hunk {hunk_index} of {path} no longer matches the file (it changed after turn {turn})"
                ) from None
            repo.snapshot(f"reverted hunk {hunk_index} of {path} (turn {turn})")
            repo.set_undo(undo.commit)
        self._said(key, f"Took back hunk {hunk_index + 1} of {shown(path)} from turn {turn}.")
        self._emit(ChangesRecorded(key=key, turn=turn))

    @_one_line
    def restore(self, key: str, turn: int, *, fork: bool = False, force: bool = False) -> RestoreResult:
        """The folder back to before that turn; ``fork`` also forks the line there (later messages are left
        out of what the fork's model sees; stored messages are never deleted). Undoable."""
        key = self._key(key)
        self._refuse_running(key, "restoring")
        row = self._row(key, turn)
        repo = self._repo(key)
        with repo.lock:
            if not force:
                self._refuse_dirty(key, repo, "restore")
            undo = repo.snapshot(f"before restoring to before turn {turn}")
            _checkout(repo, row.before_commit, f"cannot restore line {key} to before turn {turn}")
            repo.snapshot(f"restored to before turn {turn}")
            repo.set_undo(undo.commit)
        fork_key = None
        if fork:
            thread = self._controller.tasks.dispatch.fork(key, before_id=row.fork_before_id)
            if thread.workspace_binding is not None and thread.workspace_binding.path:
                repo.export_tree(row.before_commit, Path(thread.workspace_binding.path))
            fork_key = thread.thread_id
            self._emit(LineCreated(key=fork_key))
        self._emit(ChangesRecorded(key=key, turn=turn))
        return RestoreResult(
            key=key,
            turn=turn,
            fork_key=fork_key,
            undo_available=True,
            before_exact=row.before_state != BEFORE_NOT_EXACT,
        )

    @_one_line
    def undo_restore(self, key: str, *, force: bool = False) -> None:
        """Undo the last restore (or file / hunk revert) on that line."""
        key = self._key(key)
        self._refuse_running(key, "undoing a restore")
        repo = self._repo(key)
        point = repo.undo_point() if repo.git_dir.is_dir() else None
        if point is None:
            raise CheckpointError(f"line {key} has no restore to undo")
        with repo.lock:
            if not force:
                self._refuse_dirty(key, repo, "undo the restore")
            repo.snapshot("before undoing a restore")
            _checkout(repo, point, f"cannot undo the restore on line {key}")
            repo.snapshot("undid a restore")
            repo.clear_undo()
        last = self._rows.last(key)
        self._emit(ChangesRecorded(key=key, turn=last.turn if last else 0))

    @_one_line
    def undo_available(self, key: str) -> bool:
        repo = self._repo(self._key(key))
        return repo.git_dir.is_dir() and repo.undo_point() is not None

    def _folder_repo(self, key: str) -> FolderRepo:
        thread = self._controller.get_thread(key)
        folder = _unswapped(thread) if thread.workspace_binding.path else None
        if folder is None or not (folder / ".git").exists():
            raise CheckpointError(f"the folder of line {key} is not a git repository; it has no uncommitted scope")
        return FolderRepo(folder)


def _unswapped(thread: TaskThread) -> Path:
    """The line's folder, unless it became a link or another folder since it was bound (SBX-3): git never gets
    a swapped-in folder as its work tree (a snapshot of the data folder, a restore into another line's)."""
    path = Path(thread.workspace_binding.path or "")
    problem = thread.workspace_binding.problem()
    if problem is not None and os.path.lexists(path):  # a missing folder is no one else's: its history still reads
        raise CheckpointError(problem)
    return path


def _checkout(repo: ShadowRepo, commit: str, what: str) -> None:
    """The whole folder to ``commit``, refused before any write if a path it writes crosses a link (SBX-3)."""
    try:
        repo.checkout_tree(repo.tree_of(commit))
    except UnsafePath as exc:
        raise CheckpointError(f"{what}: {shown(exc.path)} would be written, but {exc}; nothing was changed") from None


def _reason(exc: BaseException) -> str:
    """The first line of why a snapshot failed, for a notice."""
    text = str(exc).strip()
    return shown(text.splitlines()[0]) if text else type(exc).__name__


def _no_after(key: str, row: CheckpointTurn) -> str:
    if row.finished_at is None:
        return f"turn {row.turn} of line {key} is still running"
    return f"turn {row.turn} of line {key} has no checkpoint after it (taking it failed); restore to before it instead"


def _clean_path(path: str) -> str:
    """A path relative to the line's folder, ``/``-separated; one line for anything else."""
    cleaned = path.replace("\\", "/").strip()
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    if not cleaned or cleaned.startswith("/") or ".." in cleaned.split("/"):
        raise CheckpointError(f"{path!r} is not a path inside the line's folder")
    return cleaned
