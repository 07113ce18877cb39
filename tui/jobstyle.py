"""One colour and one letter per job, like Slurm's smap, shared by every pane that names jobs.

The palette holds twelve mid-tone colours, each with a contrast ratio of at least 2.6 against both
a near-black (#121212) and a near-white (#f5f5f5) background, so a job reads the same in the dark
and the light theme. Letters cycle through 62 symbols and colours through 12 with a stride
coprime to 12, so neighbouring job indices differ in both and a (letter, colour) pair repeats only
every 372 jobs.
"""

from __future__ import annotations

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PALETTE = (
    "#e6194b",
    "#2ca02c",
    "#4363d8",
    "#d95f02",
    "#9467bd",
    "#16a085",
    "#f032e6",
    "#808000",
    "#0984e3",
    "#a6761d",
    "#b07aa1",
    "#66a61e",
)
"""Twelve distinguishable colours that read on dark and light backgrounds."""

_STRIDE = 5
"""Step through the palette per job index (coprime to its length)."""

FREE_GLYPH = "·"
DOWN_GLYPH = "×"
RESERVED_GLYPH = "░"
PENDING_GLYPH = "◌"
"""An idle unit that a pending reservation will take at its start."""
KILLED_GLYPH = "×"


def job_letter(index: int) -> str:
    """The job's letter: A–Z, a–z, 0–9, then again."""
    return LETTERS[index % len(LETTERS)]


def job_color(index: int) -> str:
    """The job's colour as ``#rrggbb`` (neighbouring job indices get different colours)."""
    return PALETTE[(index * _STRIDE) % len(PALETTE)]
