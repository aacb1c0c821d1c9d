"""JSON (and TOML) read from files and options a user hands to glory_ai (positions, configs,
records, ``--variant`` values), with caps.

A JSON text nested deeper than the standard library's parser can recurse ends in a
RecursionError traceback, and a huge file fills memory before anything checks it. Every
reader of such files goes through :func:`loads` or :func:`read_json`: a text over
:data:`MAX_BYTES` or nested deeper than :data:`MAX_DEPTH` is a :class:`JSONLimitError` (a
ValueError), one line naming the file, as is text that is not JSON.

>>> loads('{"a": [1, 2]}', "x.json")
{'a': [1, 2]}
>>> loads("[" * 100_000, "deep.json")
Traceback (most recent call last):
...
glory_ai._jsonio.JSONLimitError: deep.json: nested deeper than 64 levels

An option's value that may be JSON or plain text (:func:`value_or_text`) is capped the same
way; a TOML config (:func:`toml_loads`) is refused in one line when it nests deeper than
Python's parser can recurse, as tomllib's own errors are. Every config file (an experiment,
a study, a training or learning config) is read by :func:`read_toml`, whose
:class:`ConfigReadError` each command turns into its own error in one line.
"""
from __future__ import annotations

import json
import os
import re
import tomllib
from typing import Any

from ._reading import CONFIG_BYTES, ReadLimitError, read_bytes

__all__ = ["MAX_BYTES", "MAX_DEPTH", "ConfigReadError", "JSONLimitError", "depth_exceeds", "loads",
           "read_json", "read_toml", "toml_loads", "value_or_text"]

#: the largest JSON file read whole (a position, a config, a saved game: kilobytes)
MAX_BYTES = 64 << 20
#: the deepest nesting of arrays and objects (glory_ai's own files nest a few levels)
MAX_DEPTH = 64

#: strings (their brackets are not nesting) and the brackets themselves
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class JSONLimitError(ValueError):
    """A JSON input over the caps, or not JSON: the message is one line naming the file."""


def depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Does ``text`` nest arrays and objects deeper than ``limit``? (Brackets inside
    strings do not count; an unbalanced text is the parser's to refuse.)

    >>> depth_exceeds('[[["]]]]]]"]]]', 2)
    True
    >>> depth_exceeds('{"a": "[[[["}', 1)
    False
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for token in _TOKENS.findall(text):
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def loads(text: str | bytes, source: str = "input", *, max_bytes: int = MAX_BYTES,
          max_depth: int = MAX_DEPTH) -> Any:
    """``text`` parsed (the standard library's JSON), or JSONLimitError naming ``source``:
    longer than ``max_bytes``, nested deeper than ``max_depth``, or not JSON."""
    if len(text) > max_bytes:
        raise JSONLimitError(f"{source}: {len(text):,} bytes, more than the {max_bytes:,} a JSON "
                             "input may hold")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONLimitError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if depth_exceeds(text, max_depth):
        raise JSONLimitError(f"{source}: nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError:          # cannot happen below the depth cap; kept as a last guard
        raise JSONLimitError(f"{source}: nested too deeply") from None
    except ValueError as exc:
        raise JSONLimitError(f"{source}: not valid JSON ({' '.join(str(exc).split())})") from None


def read_json(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES,
              max_depth: int = MAX_DEPTH) -> Any:
    """The JSON file at ``path`` parsed within the caps (:func:`loads`); OSError as raised
    (a missing file is the caller's to word), JSONLimitError for the rest (a FIFO, a device:
    :mod:`glory_ai._reading`)."""
    try:
        data = read_bytes(path, "a JSON input", max_bytes)
    except ReadLimitError as exc:
        raise JSONLimitError(str(exc)) from None
    return loads(data, str(path), max_bytes=max_bytes, max_depth=max_depth)


def value_or_text(text: str, source: str = "input", *, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` parsed as JSON when it is JSON, else ``text`` itself (an option such as
    ``--variant removed=Catacomb`` takes either); JSONLimitError naming ``source`` when it
    is longer than :data:`MAX_BYTES` or nests deeper than ``max_depth``.

    >>> value_or_text("6"), value_or_text("Catacomb")
    (6, 'Catacomb')
    """
    if len(text) > MAX_BYTES:
        raise JSONLimitError(f"{source}: {len(text):,} bytes, more than the {MAX_BYTES:,} a JSON "
                             "input may hold")
    if depth_exceeds(text, max_depth):
        raise JSONLimitError(f"{source}: nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def toml_loads(text: str, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """``tomllib.loads(text)``; a text longer than ``max_bytes``, or nested deeper than
    Python's parser recurses (tomllib reads arrays and inline tables recursively), is a
    ``tomllib.TOMLDecodeError`` too: the caller's one-line "not valid TOML" names the file.

    >>> toml_loads("x = " + "[" * 100_000)
    Traceback (most recent call last):
    ...
    tomllib.TOMLDecodeError: nested too deeply: arrays or inline tables more than a few hundred levels deep
    """
    if len(text) > max_bytes:
        raise tomllib.TOMLDecodeError(f"{len(text):,} bytes, more than the {max_bytes:,} a config "
                                      "may hold")
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply: arrays or inline tables more than a few "
                                      "hundred levels deep") from None


class ConfigReadError(ValueError):
    """A config file that cannot be read as TOML: one line naming the file."""


def read_toml(path: str | os.PathLike[str], what: str, max_bytes: int = CONFIG_BYTES
              ) -> tuple[str, dict[str, Any]]:
    """The text of a TOML config file (``what``: "an experiment config") and its tables;
    ConfigReadError, one line naming the file, for a missing, unreadable or oversized file, a
    folder, text that is not UTF-8 or not TOML (nested too deeply included).

    >>> read_toml("nowhere.toml", "a study config")
    Traceback (most recent call last):
    ...
    glory_ai._jsonio.ConfigReadError: nowhere.toml: no such file
    """
    where = os.fspath(path)
    if os.path.isdir(where):
        raise ConfigReadError(f"{where}: a folder, not {what}")
    try:
        raw = read_bytes(where, what, max_bytes)
    except FileNotFoundError:
        raise ConfigReadError(f"{where}: no such file") from None
    except ReadLimitError as exc:
        raise ConfigReadError(str(exc)) from None
    except OSError as error:
        raise ConfigReadError(f"{where}: cannot read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigReadError(f"{where}: not a text file (not UTF-8 at byte {exc.start}): {what} is "
                              "TOML") from None
    try:
        return text, toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigReadError(f"{where}: not valid TOML ({exc})") from None
