"""What kind of file a path is, from its first bytes: every reader refuses the wrong kind by name.

A reader handed a directory, an empty file, a NumPy array, a zip archive, a binary file or a
JSON document where it expects something else says what it got and what it expected, instead
of failing deep inside a parser (a ``.npy`` given as a schedule used to crash ``np.load``'s
archive handling; a JSON instance given as a trace failed on its "header").
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NoReturn

__all__ = ["KINDS", "file_kind", "expect_kind", "json_value_error_rule", "JSONConstantError",
           "locate_json_constant"]

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_HEAD_BYTES = 512

#: kind -> how it is named in messages
KINDS = {
    "directory": "a directory",
    "empty": "an empty file",
    "npy": "a single NumPy array (.npy)",
    "zip": "a zip archive (such as a .npz schedule)",
    "binary": "a binary file, not UTF-8 text",
    "json": "a JSON document",
    "text": "a text file",
}


def file_kind(path: str | Path) -> str:
    """One of the keys of :data:`KINDS`, from the file system and the first bytes.

    ``json`` means the first non-blank character (after a UTF-8 byte order mark) opens a JSON
    object or array; ``text`` is any other UTF-8 text; ``binary`` means a NUL byte or bytes that
    are not UTF-8 near the start.

    Raises
    ------
    FileNotFoundError, PermissionError
        As ``open`` does.
    """
    if os.path.isdir(path):
        return "directory"
    with open(path, "rb") as fh:
        head = fh.read(_HEAD_BYTES)
    if not head:
        return "empty"
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head.startswith(_ZIP_MAGICS):
        return "zip"
    try:
        # a multi-byte character may be cut at the end of the head: ignore the last 3 bytes
        head[:-3].decode("utf-8") if len(head) == _HEAD_BYTES else head.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    if b"\x00" in head:
        return "binary"
    stripped = head.lstrip(b" \t\r\n").removeprefix(b"\xef\xbb\xbf")
    if stripped[:1] in (b"{", b"["):
        return "json"
    return "text"


def expect_kind(path: str | Path, allowed: tuple[str, ...], expected: str, error: type) -> str:
    """Raise ``error`` (an InputError class) naming what ``path`` is and what was ``expected``
    unless its :func:`file_kind` is in ``allowed``; return the kind."""
    kind = file_kind(path)
    if kind not in allowed:
        refuse(path, f"this is {KINDS[kind]}, expected {expected}", error)
    return kind


def refuse(path, rule: str, error: type) -> NoReturn:
    raise error(rule, file=str(path))


class JSONConstantError(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a JSON document: Python's ``json`` reads them,
    the JSON standard does not, and no coflowopt value may be one.  ``json`` does not say where
    the token was (its ``parse_constant`` hook gets only the token): :func:`locate_json_constant`
    finds it in the text."""

    def __init__(self, token: str):
        self.token = token
        super().__init__(f"{token} is not a valid JSON number")


# strings are matched whole (escapes included) so that a token inside one is skipped
_CONSTANT_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def locate_json_constant(text: str) -> tuple[int, int, str] | None:
    """``(line, column, token)`` (1-based) of the first ``NaN`` / ``Infinity`` / ``-Infinity``
    outside a string in the JSON ``text``, or None.

    >>> locate_json_constant('{"id": "NaN",\\n "w": [1, -Infinity]}')
    (2, 11, '-Infinity')
    """
    for m in _CONSTANT_OR_STRING.finditer(text):
        if m.group(1):
            line = text.count("\n", 0, m.start()) + 1
            return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1, m.group(1)
    return None


def json_value_error_rule(e: ValueError) -> str:
    """The rule for a ``ValueError`` that ``json`` raised while converting a value.

    Python refuses to convert integer strings of more than 4,300 digits (a denial-of-service
    guard); that limit is an implementation detail, so it is reported as coflowopt's own
    :data:`~coflowopt.limits.MAX_NUMBER_DIGITS` rule.
    """
    from ..limits import MAX_NUMBER_DIGITS
    msg = str(e)
    if "integer string conversion" in msg:
        return (f"an integer is written with more than {MAX_NUMBER_DIGITS} digits "
                "(MAX_NUMBER_DIGITS, coflowopt.limits): no value in range needs them")
    if isinstance(e, UnicodeDecodeError):
        return f"not a UTF-8 text file (bad byte at offset {e.start})"
    return msg or "not valid JSON"
