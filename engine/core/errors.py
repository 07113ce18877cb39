"""The one exception type the front ends turn into a one-line message and a non-zero exit."""


class MeshsimError(Exception):
    """Bad input or an impossible request, with a message that names the file, line or key.

    The message is complete on its own (``"trace.swf line 12: expected 18 fields, got 17"``);
    the command line prints it after ``error:`` and exits with status 2, never with a traceback.
    """


def where(source: str, *, line: int | None = None, key: str | None = None) -> str:
    """Format the location part of a message: ``file``, ``file line N`` or ``file key K``."""
    if line is not None:
        return f"{source} line {line}"
    if key is not None:
        return f"{source} key '{key}'"
    return source
