"""What every piece of ``SessionController`` shares, passed to each explicitly (issue 19).

The store, the settings, the one event sink (the listeners a change record goes to)
and the registry of running turns. A piece reaches another piece only through its
public methods, never through this context's back door or another's private members.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from xworkmate.controllers.changes import Change, MessagesAppended
from xworkmate.controllers.store_thread import StoreThread, held_changes
from xworkmate.domain.keys import InvalidSessionKeyError, normalize_session_key
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.settings import Settings
from xworkmate.store import Store

if TYPE_CHECKING:
    from xworkmate.controllers.outcomes import TurnOutcome
    from xworkmate.domain.threads import TaskThread

Listener = Callable[[Change], None]


class UnknownSessionKeyError(LookupError):
    """No task line has this key. The current line is left as it was."""

    def __init__(self, key: str) -> None:
        super().__init__(f"no task line with session key {key!r}")
        self.key = key


@dataclasses.dataclass
class ControllerContext:
    """The store, the settings, the event sink and the running-turn registry of one controller."""

    store: Store
    settings: Settings
    listeners: list[Listener] = dataclasses.field(default_factory=list)
    running: set[str] = dataclasses.field(default_factory=set)
    """Keys of the lines with a turn running (between the gate and the turn's end)."""
    turn_tasks: dict[str, asyncio.Task[TurnOutcome]] = dataclasses.field(default_factory=dict)
    """The event-loop task of each running turn the controller started (Stop cancels it)."""
    store_thread: StoreThread = dataclasses.field(init=False)
    """Where a turn's store work runs, off the event loop (``controllers/store_thread``)."""

    def __post_init__(self) -> None:
        self.store_thread = StoreThread(self.emit)

    # -- the event sink -----------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def emit(self, change: Change) -> None:
        held = held_changes()
        if held is not None:  # on the store thread: delivered on the loop when its work returns
            held.append(change)
            return
        for listener in list(self.listeners):
            listener(change)

    def emit_messages(self, key: str, ids: tuple[int, ...], messages: tuple[Message, ...] = ()) -> None:
        """``MessagesAppended`` for ``ids``, carrying ``messages`` (those of them the caller just wrote)."""
        self.emit(MessagesAppended(key=key, message_ids=ids, messages=messages))

    def notice(self, key: str, text: str, state: MessageState = MessageState.ERROR) -> int:
        """A framework notice on a line: shown to the person, never to the model."""
        message = self.store.messages.append(
            key, role=MessageRole.SYSTEM, source=MessageSource.FRAMEWORK_EVENT, content=text, state=state
        )
        self.emit_messages(key, (message.id,), (message,))
        return message.id

    # -- keys and lines -----------------------------------------------------------

    def is_running(self, key: str) -> bool:
        return self.canonical(key) in self.running

    @staticmethod
    def canonical_or_none(key: str | None) -> str | None:
        try:
            return normalize_session_key(key) if key else None
        except InvalidSessionKeyError:
            return None

    @staticmethod
    def canonical(key: str) -> str:
        try:
            return normalize_session_key(key)
        except InvalidSessionKeyError as exc:
            raise UnknownSessionKeyError(key) from exc

    def get_thread(self, key: str) -> TaskThread:
        thread = self.store.threads.get(self.canonical(key))
        if thread is None:
            raise UnknownSessionKeyError(key)
        return thread
