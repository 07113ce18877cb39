"""Terminal output shared by the commands: Rich consoles and the one-line error rule."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console


class _Lazy:
    """A Rich console made on first use: a quiet run never pays for importing Rich."""

    def __init__(self, *, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return getattr(self._console, name)


out: Console = _Lazy(stderr=False)  # type: ignore[assignment]
err: Console = _Lazy(stderr=True)  # type: ignore[assignment]


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr as one line and exit with ``code``."""
    error_line(message)
    raise typer.Exit(code)


def interactive() -> bool:
    """True when stderr is a terminal (progress bars are shown only then)."""
    return sys.stderr.isatty()


def error_line(message: str) -> None:
    """Print ``error: message`` on stderr as one line (markup in the message is shown literally;
    line breaks inside it become spaces)."""
    from rich.markup import escape

    text = " ".join(message.split("\n"))
    err.print(f"[bold red]error:[/] {escape(text)}")
