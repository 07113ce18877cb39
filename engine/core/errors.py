"""The one exception type the front ends turn into a one-line message and a non-zero exit."""

import unicodedata


class MeshsimError(Exception):
    """Bad input or an impossible request, with a message that names the file, line or key.

    The message is complete on its own (``"trace.swf line 12: expected 18 fields, got 17"``);
    the command line prints it after ``error:`` and exits with status 2, never with a traceback.
    It is always one line: control characters that a quoted input brings (a file name or a value
    holding a line break, a tab or a terminal escape) are written as escapes (:func:`one_line`).
    """

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(one_line(str(message)), *args)


def one_line(text: str) -> str:
    """``text`` with every control character (C0, DEL and C1) written as its Python escape
    (``\\n``, ``\\t``, ``\\x1b``), so an input's own bytes can neither break a message into
    lines nor drive the terminal that shows it."""
    if text.isprintable():
        return text
    return "".join(_escaped(c) if unicodedata.category(c) in _BREAKING else c for c in text)


_BREAKING = frozenset(("Cc", "Zl", "Zp"))
"""Unicode categories that break or drive a terminal line: control characters and the line and
paragraph separators."""


def _escaped(c: str) -> str:
    return c.encode("unicode_escape").decode("ascii")


def where(source: str, *, line: int | None = None, key: str | None = None) -> str:
    """Format the location part of a message: ``file``, ``file line N`` or ``file key K``."""
    if line is not None:
        return f"{source} line {line}"
    if key is not None:
        return f"{source} key '{key}'"
    return source
