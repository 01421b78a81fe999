"""Reading a file the person attaches (SPEC ATT-1): checked before a byte of it is read whole."""

from __future__ import annotations

from pathlib import Path

from xworkmate.domain.attachments import (
    IMAGE_MAX_BYTES,
    Attachment,
    AttachmentError,
    attachment_from_bytes,
    describe_size,
)


def attachment_from_file(path: str | Path) -> Attachment:
    """The file at ``path`` as an attachment; missing, unreadable, too big or not an image nor text:
    one ``AttachmentError`` line naming it (ERR-1). Never reads more than the largest cap allows."""
    file = Path(path).expanduser()
    try:
        with file.open("rb") as handle:
            data = handle.read(IMAGE_MAX_BYTES + 1)
    except FileNotFoundError:
        raise AttachmentError(f"{path}: no such file to attach") from None
    except IsADirectoryError:
        raise AttachmentError(f"{path} is a folder: attach files one by one") from None
    except OSError as exc:
        raise AttachmentError(f"{path} cannot be read: {exc.strerror or type(exc).__name__}") from None
    if len(data) > IMAGE_MAX_BYTES:
        size = file.stat().st_size
        raise AttachmentError(
            f"{file.name} is {describe_size(size)}: attachments are at most {describe_size(IMAGE_MAX_BYTES)}"
        )
    return attachment_from_bytes(file.name, data)
