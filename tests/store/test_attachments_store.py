"""Attachments and the vision flag round-trip through the store, on SQLite and PostgreSQL alike (ATT-1)."""

from __future__ import annotations

from tests.cli.test_cli_attachments import png_bytes
from tests.store.test_repositories import _thread
from xworkmate.domain.attachments import attachment_from_bytes, attachments_in, attachments_payload
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store


def test_a_providers_vision_flag_round_trips(store: Store) -> None:
    store.providers.add(ProviderRecord(name="eyes", base_url="http://127.0.0.1:9/v1", model="m", vision=True))
    store.providers.add(ProviderRecord(name="blind", base_url="http://127.0.0.1:9/v1", model="m"))
    assert {p.name: p.vision for p in store.providers.list()} == {"eyes": True, "blind": False}


def test_a_message_keeps_its_attachments_whole(store: Store) -> None:
    thread = _thread()
    store.threads.insert(thread)
    image = attachment_from_bytes("shot.png", png_bytes(4096))
    notes = attachment_from_bytes("notes.txt", "步骤一\nstep two".encode())
    stored = store.messages.append(
        thread.thread_id,
        role=MessageRole.USER,
        source=MessageSource.HUMAN,
        content="look",
        payload=attachments_payload((image, notes)),
    )
    [read] = [m for m in store.messages.model_view(thread.thread_id, viewer=DESKTOP) if m.id == stored.id]
    assert attachments_in(read.payload) == (image, notes)
