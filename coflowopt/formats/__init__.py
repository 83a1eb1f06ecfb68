"""Readers and writers for instances and schedules.

Instance formats (each with a reader and a writer, exact round trips):

``json``
    The coflowopt interchange format (:mod:`.instance_json`).

More formats register themselves in :data:`INSTANCE_FORMATS`.
"""

from __future__ import annotations

from pathlib import Path

from ..exceptions import InvalidParameterError
from .instance_json import (dumps_instance, instance_from_dict, instance_to_dict,
                            read_instance_json, write_instance_json)

__all__ = ["read_instance", "write_instance", "detect_format", "INSTANCE_FORMATS",
           "instance_from_dict", "instance_to_dict", "dumps_instance", "read_instance_json",
           "write_instance_json"]

#: name -> (reader, writer).  Readers take (path, **options); writers (instance, path, **options).
INSTANCE_FORMATS = {
    "json": (read_instance_json, write_instance_json),
}


def detect_format(path: str | Path) -> str:
    """Guess an instance file's format from its name (``.json`` -> json) or first line."""
    p = str(path)
    if p.endswith(".json"):
        return "json"
    raise InvalidParameterError(
        f"cannot tell the format of {p!r}; pass format= one of {sorted(INSTANCE_FORMATS)}")


def read_instance(path: str | Path, format: str = "auto", **options):
    """Read an instance file in any registered format (``format="auto"`` guesses)."""
    fmt = detect_format(path) if format == "auto" else format
    if fmt not in INSTANCE_FORMATS:
        raise InvalidParameterError(
            f"unknown instance format {fmt!r}; known: {sorted(INSTANCE_FORMATS)}")
    return INSTANCE_FORMATS[fmt][0](path, **options)


def write_instance(instance, path: str | Path, format: str = "auto", **options) -> None:
    """Write an instance in any registered format (``format="auto"`` goes by the file name)."""
    fmt = detect_format(path) if format == "auto" else format
    if fmt not in INSTANCE_FORMATS:
        raise InvalidParameterError(
            f"unknown instance format {fmt!r}; known: {sorted(INSTANCE_FORMATS)}")
    INSTANCE_FORMATS[fmt][1](instance, path, **options)
