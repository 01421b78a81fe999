"""What the person attaches to a message: images and text files (SPEC ATT-1, issue 31).

An attachment rides in its message's ``payload["attachments"]``: an image as
base64 bytes (up to ``IMAGE_MAX_BYTES``), a text file as its text (up to
``TEXT_MAX_BYTES``). Anything else, or anything larger, is refused in one line
(ERR-1) before anything is stored (ERR-2). Pure: the bytes come from the caller.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

IMAGE_MAX_BYTES = 10 * 1024 * 1024
TEXT_MAX_BYTES = 256 * 1024
PAYLOAD_KEY = "attachments"

# Magic numbers of the image formats OpenAI-compatible models and ACP agents take.
_IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class AttachmentKind(StrEnum):
    IMAGE = "image"
    TEXT = "text"


class AttachmentError(ValueError):
    """An attachment that cannot be sent, said in one line naming the file."""


class Attachment(BaseModel):
    """One attached file: an image's bytes (base64) or a text file's text."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    mime_type: str
    size: int
    kind: AttachmentKind
    data_base64: str | None = None
    text: str | None = None

    @property
    def is_image(self) -> bool:
        return self.kind is AttachmentKind.IMAGE

    def data_url(self) -> str:
        """An image as a ``data:`` URL (OpenAI ``image_url`` content parts take it)."""
        return f"data:{self.mime_type};base64,{self.data_base64 or ''}"

    def delimited_text(self) -> str:
        """A text file as the model reads it: its name, then its text, clearly fenced."""
        return f"--- attached file: {self.name} ---\n{self.text or ''}\n--- end of {self.name} ---"

    def to_payload(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


_CHUNK = 3 * 256 * 1024  # a multiple of 3: the chunks' base64 joins into the whole's


def _base64(data: bytes) -> str:
    """Base64 in chunks: a worker encoding 10 MB lets the GUI thread run between them (the GIL is not held
    for the whole encoding in one C call; LOOP-4, issue 31's benchmark)."""
    view = memoryview(data)
    return "".join(base64.b64encode(view[i : i + _CHUNK]).decode("ascii") for i in range(0, len(data), _CHUNK))


def image_mime_type(data: bytes) -> str | None:
    for signature, mime in _IMAGE_SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def describe_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


def attachment_from_bytes(name: str, data: bytes) -> Attachment:
    """An image or a text file, checked; anything else refused in one ``AttachmentError`` line."""
    name = name.strip() or "attachment"
    mime = image_mime_type(data)
    if mime is not None:
        if len(data) > IMAGE_MAX_BYTES:
            raise AttachmentError(
                f"{name} is {describe_size(len(data))}: images are attached up to {describe_size(IMAGE_MAX_BYTES)}"
            )
        encoded = _base64(data)
        return Attachment(name=name, mime_type=mime, size=len(data), kind=AttachmentKind.IMAGE, data_base64=encoded)
    if b"\x00" in data:
        raise AttachmentError(f"{name} is neither an image (PNG, JPEG, GIF, WebP) nor a text file: not attached")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttachmentError(
            f"{name} is neither an image (PNG, JPEG, GIF, WebP) nor a UTF-8 text file: not attached"
        ) from None
    if len(data) > TEXT_MAX_BYTES:
        raise AttachmentError(
            f"{name} is {describe_size(len(data))}: text files are attached up to {describe_size(TEXT_MAX_BYTES)}"
        )
    return Attachment(name=name, mime_type="text/plain", size=len(data), kind=AttachmentKind.TEXT, text=text)


def attachments_payload(attachments: Sequence[Attachment], payload: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A message's payload carrying ``attachments`` (beside whatever else it carries)."""
    out = dict(payload or {})
    if attachments:
        out[PAYLOAD_KEY] = [a.to_payload() for a in attachments]
    return out


def attachments_in(payload: Mapping[str, Any] | None) -> tuple[Attachment, ...]:
    """The attachments a stored message carries (none for most)."""
    raw = (payload or {}).get(PAYLOAD_KEY) or ()
    return tuple(Attachment.model_validate(item) for item in raw if isinstance(item, Mapping))


def has_image(attachments: Iterable[Attachment]) -> bool:
    return any(a.is_image for a in attachments)


def text_with_attachments(text: str, attachments: Iterable[Attachment]) -> str:
    """The person's words and the text files they attached: what they supplied as text (WR-1 evidence)."""
    files = [a.delimited_text() for a in attachments if a.kind is AttachmentKind.TEXT]
    return "\n\n".join([text, *files]) if files else text


def images_refused(provider: str) -> str:
    """ATT-1: the one line that refuses an image for a model that does not take images."""
    return (
        f"{provider} does not take images; remove the image, or use a provider added with --vision"
        " (`xworkmate provider add ... --vision`)"
    )
