"""One colour and one letter per job, like Slurm's smap, shared by every pane that names jobs."""

from __future__ import annotations

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PALETTE = (
    "#e6194b",
    "#3cb44b",
    "#4363d8",
    "#f58231",
    "#911eb4",
    "#42d4f4",
    "#f032e6",
    "#bfef45",
    "#fabed4",
    "#469990",
    "#dcbeff",
    "#9a6324",
    "#fffac8",
    "#800000",
    "#aaffc3",
    "#808000",
)
"""Sixteen distinguishable colours (Sasha Trubetskoy's list) that read on dark and light."""

FREE_GLYPH = "·"
DOWN_GLYPH = "×"
RESERVED_GLYPH = "░"


def job_letter(index: int) -> str:
    """The job's letter: A–Z, a–z, 0–9, then again."""
    return LETTERS[index % len(LETTERS)]


def job_color(index: int) -> str:
    """The job's colour (neighbouring job indices get different colours)."""
    return PALETTE[(index * 7) % len(PALETTE)]
