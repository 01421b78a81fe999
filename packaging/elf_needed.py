"""Read the ``DT_NEEDED`` entries (the shared libraries a file links) of an ELF file.

Used on Linux by ``xworkmate.spec`` (to drop Qt libraries only the pruned
plugins needed) and by ``debian_depends.py`` (to find the system libraries the
bundle needs). Standard library only: no binutils on the build machine needed.
"""

from __future__ import annotations

import struct
from pathlib import Path

ELF_MAGIC = b"\x7fELF"
SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NULL = 0
DT_NEEDED = 1


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == ELF_MAGIC
    except OSError:
        return False


def _sections(data: bytes) -> tuple[str, list[tuple[int, ...]]]:
    is_64 = data[4] == 2
    endian = "<" if data[5] == 1 else ">"
    if is_64:
        (shoff,) = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
        section_fmt, dyn_fmt = endian + "IIQQQQIIQQ", "qQ"
    else:
        (shoff,) = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
        section_fmt, dyn_fmt = endian + "IIIIIIIIII", "iI"
    sections = [struct.unpack_from(section_fmt, data, shoff + i * shentsize) for i in range(shnum)]
    return endian + dyn_fmt, sections


def _string(data: bytes, offset: int) -> str:
    return data[offset : data.index(b"\0", offset)].decode()


def needed(path: Path) -> list[str]:
    """Sonames from the ``.dynamic`` section, in file order; ``[]`` for a static or non-ELF file."""
    data = path.read_bytes()
    if data[:4] != ELF_MAGIC:
        return []
    dyn_fmt, sections = _sections(data)
    names: list[str] = []
    for section in sections:
        sh_type, sh_offset, sh_size, sh_link = section[1], section[4], section[5], section[6]
        if sh_type != SHT_DYNAMIC:
            continue
        strtab_offset = sections[sh_link][4]
        entry_size = struct.calcsize(dyn_fmt)
        for pos in range(sh_offset, sh_offset + sh_size, entry_size):
            tag, value = struct.unpack_from(dyn_fmt, data, pos)
            if tag == DT_NULL:
                break
            if tag == DT_NEEDED:
                names.append(_string(data, strtab_offset + value))
    return names


def needed_versions(path: Path) -> dict[str, set[str]]:
    """Symbol versions required per library (``.gnu.version_r``), e.g. ``{"libc.so.6": {"GLIBC_2.34"}}``."""
    data = path.read_bytes()
    if data[:4] != ELF_MAGIC:
        return {}
    endian = "<" if data[5] == 1 else ">"
    _, sections = _sections(data)
    versions: dict[str, set[str]] = {}
    for section in sections:
        if section[1] != SHT_GNU_VERNEED:
            continue
        strtab_offset = sections[section[6]][4]
        pos = section[4]
        while True:  # Elf_Verneed entries, each with a chain of Elf_Vernaux (same layout in ELF32 and ELF64)
            _, count, file_name, aux, following = struct.unpack_from(endian + "HHIII", data, pos)
            library = versions.setdefault(_string(data, strtab_offset + file_name), set())
            aux_pos = pos + aux
            for _ in range(count):
                _, _, _, name, aux_next = struct.unpack_from(endian + "IHHII", data, aux_pos)
                library.add(_string(data, strtab_offset + name))
                aux_pos += aux_next
            if not following:
                break
            pos += following
    return versions
