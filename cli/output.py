"""Terminal output shared by the commands: Rich consoles and the one-line error rule."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr as one line and exit with ``code``."""
    error_line(message)
    raise typer.Exit(code)


def interactive() -> bool:
    """True when stderr is a terminal (progress bars are shown only then)."""
    return sys.stderr.isatty()


def error_line(message: str) -> None:
    """Print ``error: message`` on stderr (markup in the message is shown literally)."""
    err.print(f"[bold red]error:[/] {escape(message)}")
