"""The examples of the README and of docs/: every fenced block, found, classified and run.

A page's blocks run in order in one working folder, so a file one block writes is there for the
next. The folder holds links to the checkout's ``traces``, ``machines`` and ``experiments`` and to
the virtual environment running the tests (as ``.venv``), so commands read as they do in a fresh
clone. What a block is, and what is checked:

- ``console``: ``$ command`` lines (a line ending in ``\\`` continues), each followed by the lines
  of its output that matter; each shown line must appear, in order, in what the command printed
  (runs of spaces compared as one; a ``...`` line shows nothing). A command must succeed, unless
  a line it shows starts with ``error:``: then it must fail.
- ``bash`` / ``sh``: every line is a command that must succeed.
- ``python``: the page's Python blocks run in order in one interpreter (one namespace); a
  ``text`` block right after one is exactly what it prints.
- ``text`` right after a ``console`` or ``bash`` block: lines its last command prints.
- ``toml`` / ``json`` with ``<!-- test: file NAME -->`` before it: written to NAME for the
  commands after it; a ``json`` block with ``<!-- test: subset-of NAME -->`` must be contained in
  the JSON file NAME (``"..."`` stands for any value).
- ``text`` with ``<!-- test: keys -->``: keys typed into the console the block before opened
  (``meshsim tui``), run under tmux, one line at a time; ``<!-- test: screen TEXT -->`` is what
  the screen must then show. Each line is tmux key names and words up to a ``#`` comment.

Other notes (HTML comments, invisible on the page) adjust a block: ``network REASON`` skips it
(the only blocks skipped); ``cut-down OLD => NEW`` runs it with OLD replaced by NEW (a long run on
a smaller input, which the page says); ``fresh-clone`` marks the README's first command, which
``tests/docs/test_fresh_clone.py`` runs in a clone; ``ci`` marks the command ``.ci/run`` runs.
A block of any other kind, or without the note its kind needs, is an error naming its line.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.tmux import settle, tmux, wait_for

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINKED = ("traces", "machines", "experiments", "tests")
"""Checkout folders linked into each page's working folder."""

COLUMNS = "100"
"""Terminal width the commands print for (Rich reads ``COLUMNS``)."""

COMMAND_TIMEOUT = 300.0

_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
_NOTE = re.compile(r"^\s*<!--\s*test:\s*(?P<key>[\w-]+)\s*(?P<value>.*?)\s*-->\s*$")


class ExampleError(AssertionError):
    """A block that failed, with the page and line that hold it."""


@dataclass(frozen=True)
class Block:
    """One fenced block of a page and the ``<!-- test: ... -->`` notes right above it."""

    page: Path
    line: int
    lang: str
    text: str
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)} line {self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    notes: dict[str, str] = {}
    i = 0
    while i < len(lines):
        note = _NOTE.match(lines[i])
        fence = _FENCE.match(lines[i])
        if note:
            notes[note["key"]] = note["value"]
        elif fence:
            indent = len(fence["indent"])
            body = []
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                body.append(lines[j][indent:])
                j += 1
            if j == len(lines):
                raise ExampleError(f"{page.relative_to(ROOT)} line {i + 1}: unclosed block")
            text = "\n".join(body) + "\n"
            found.append(Block(page, i + 1, fence["lang"], text, notes))
            notes = {}
            i = j
        elif lines[i].strip():
            notes = {}
        i += 1
    return found


def logical_lines(text: str) -> list[str]:
    """Lines with ``\\`` continuations joined."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def check_shown(block: Block, command: str, shown: list[str], printed: str) -> None:
    """Each shown line appears, in order, among the printed lines."""
    actual = [_squeeze(line) for line in printed.splitlines()]
    position = 0
    for line in shown:
        want = _squeeze(line)
        if not want or want == "...":
            continue
        while position < len(actual) and want not in actual[position]:
            position += 1
        if position == len(actual):
            raise ExampleError(
                f"{block.where}: `{command}` did not print {line.strip()!r} (in this order); "
                f"it printed:\n{printed}"
            )
        position += 1


@dataclass
class PageRun:
    """Runs one page's blocks in ``work``; collects what was skipped and why."""

    page: Path
    work: Path
    skipped: list[str] = field(default_factory=list)
    ran: int = 0
    _python: list[Block] = field(default_factory=list)
    _outputs: dict[int, Block] = field(default_factory=dict)
    _last_printed: str = ""
    _last_command: str = ""
    _console: tuple[Block, str] | None = None

    def __post_init__(self) -> None:
        for name in LINKED:
            (self.work / name).symlink_to(ROOT / name)
        (self.work / ".venv").symlink_to(VENV)
        (self.work / "docs").mkdir()

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["COLUMNS"] = COLUMNS
        env["NO_COLOR"] = "1"
        env.pop("VIRTUAL_ENV", None)
        return env

    def run(self) -> None:
        page_blocks = blocks(self.page)
        previous: Block | None = None
        for block in page_blocks:
            self.one(block, previous)
            previous = block
        if self._console is not None:
            self.console(*self._console, None)
        if self._python:
            self.python()

    def one(self, block: Block, previous: Block | None) -> None:
        notes = block.notes
        if "network" in notes:
            self.skipped.append(f"{block.where}: needs the network ({notes['network']})")
            return
        if "fresh-clone" in notes or "ci" in notes:
            return  # tests/docs/test_fresh_clone.py and test_docs.py check these two
        lang = block.lang
        if lang == "text" and "keys" in notes:
            if self._console is None:
                raise ExampleError(f"{block.where}: keys, but no console opened before them")
            self.console(*self._console, block)
            self._console = None
        elif lang == "text":
            if previous is None or previous.lang not in ("python", "console", "bash", "sh"):
                raise ExampleError(
                    f"{block.where}: a text block that is neither output nor keys (add a note)"
                )
            if previous.lang == "python":
                self._outputs[len(self._python) - 1] = block
            else:
                check_shown(block, self._last_command, block.text.splitlines(), self._last_printed)
        elif lang == "console":
            self.console_block(block)
        elif lang in ("bash", "sh"):
            for line in logical_lines(block.text):
                if line.strip() and not line.lstrip().startswith("#"):
                    self.command(block, line.strip())
        elif lang == "python":
            self._python.append(block)
        elif lang in ("toml", "json") and "file" in notes:
            (self.work / notes["file"]).write_text(block.text, encoding="utf-8")
        elif lang == "json" and "subset-of" in notes:
            self.subset(block, notes["subset-of"])
        else:
            raise ExampleError(
                f"{block.where}: a {lang or 'plain'} block that no test runs "
                "(see tests/docs/examples.py for the kinds and their notes)"
            )
        self.ran += 1

    def console_block(self, block: Block) -> None:
        command: str | None = None
        shown: list[str] = []
        for line in logical_lines(block.text):
            if line.startswith("$ "):
                if command is not None:
                    self.command(block, command, shown)
                command, shown = line[2:].strip(), []
            elif command is None:
                raise ExampleError(f"{block.where}: output before any `$ command`")
            else:
                shown.append(line)
        if command is not None:
            self.command(block, command, shown)

    def command(self, block: Block, command: str, shown: list[str] | None = None) -> None:
        cut = block.notes.get("cut-down")
        if cut:
            old, _, new = (part.strip() for part in cut.partition("=>"))
            if old not in block.text:
                raise ExampleError(f"{block.where}: the cut-down note's {old!r} is not in it")
            command = command.replace(old, new)
        words = shlex.split(command, comments=True)
        if _opens_console(words):
            if self._console is not None:
                self.console(*self._console, None)
            self._console = (block, command)
            return
        done = self.execute(["bash", "-c", command])
        printed = done.stdout + done.stderr
        refused = any(line.lstrip().startswith("error:") for line in shown or [])
        if (done.returncode != 0) != refused:
            expected = "an error" if refused else "success"
            raise ExampleError(
                f"{block.where}: `{command}` exited {done.returncode}, the page shows {expected}; "
                f"it printed:\n{printed}"
            )
        check_shown(block, command, shown or [], printed)
        self._last_printed, self._last_command = printed, command

    def execute(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in the working folder, capturing what it prints."""
        return subprocess.run(
            argv,
            cwd=self.work,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )

    def subset(self, block: Block, name: str) -> None:
        try:
            whole = json.loads((self.work / name).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ExampleError(f"{block.where}: cannot read {name}: {exc}") from None
        problem = _not_within(json.loads(block.text), whole, "")
        if problem:
            raise ExampleError(f"{block.where}: the JSON shown is not in {name}: {problem}")

    def python(self) -> None:
        """Run the page's Python blocks in one interpreter, each block's output compared with the
        text block after it (exactly)."""
        marker = "\x1eBLOCK\x1e"
        script = ["__ns = {}"]
        for block in self._python:
            code = json.dumps(block.text)
            name = json.dumps(block.where)
            script.append(f"print({marker!r}, flush=True)")
            script.append(f"exec(compile({code}, {name}, 'exec'), __ns)")
        done = self.execute([sys.executable, "-c", "\n".join(script)])
        printed = done.stdout.split(marker + "\n")[1:]
        if done.returncode != 0:
            failed = self._python[max(len(printed) - 1, 0)]
            raise ExampleError(f"{failed.where}: the Python block failed:\n{done.stderr}")
        for number, output in self._outputs.items():
            block = self._python[number]
            if printed[number] != output.text:
                raise ExampleError(
                    f"{block.where}: printed {printed[number]!r}, the page shows "
                    f"{output.text!r} ({output.where})"
                )

    def console(self, block: Block, command: str, keys: Block | None) -> None:
        """Open the console in tmux, type each line of ``keys``, and wait for the screen the note
        names (without keys: it opens, and quits on q)."""
        if shutil.which("tmux") is None:
            if os.environ.get("CI"):
                raise ExampleError(f"{block.where}: tmux is missing (.ci/run installs it)")
            self.skipped.append(f"{block.where}: tmux is not installed")
            return
        session = f"meshsim-docs-{os.getpid()}-{block.line}"
        status = self.work / f"exit-{block.line}"
        path = shlex.quote(self.env()["PATH"])
        shell = (
            f"export PATH={path}; cd {shlex.quote(str(self.work))} && {command}; echo $? > {status}"
        )
        tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", shell)
        try:
            wait_for(session, r"event \d+", f"{block.where}: `{command}`", 60)
            if keys is None:
                tmux("send-keys", "-t", session, "q")
                deadline = time.monotonic() + 20
                while not status.exists() and time.monotonic() < deadline:
                    time.sleep(0.2)
                if not status.exists() or status.read_text().strip() != "0":
                    raise ExampleError(f"{block.where}: `{command}` did not quit cleanly on q")
                return
            type_keys(session, keys)
        finally:
            tmux("kill-session", "-t", session)


def type_keys(session: str, keys: Block) -> None:
    """Type a keys block into the tmux ``session``, a line at a time, then wait for the screen
    its ``screen`` note names."""
    for line in keys_lines(keys.text):
        for key in line:
            tmux("send-keys", "-t", session, key)
            settle(session)
    expected = keys.notes.get("screen")
    if expected:
        wait_for(session, re.escape(expected), f"{keys.where}: the keys", 180)


def keys_lines(text: str) -> list[list[str]]:
    """The keys of a keys block: per line, the tmux key names and words before ``#``."""
    return [line.split("#", 1)[0].split() for line in text.splitlines() if line.split("#", 1)[0]]


def _opens_console(words: list[str]) -> bool:
    """``meshsim tui`` without ``--screenshot``: it needs a terminal (tmux)."""
    if not words:
        return False
    program = Path(words[0]).name
    return program == "meshsim" and "tui" in words[1:] and "--screenshot" not in words


def _not_within(part: Any, whole: Any, path: str) -> str:
    """Why ``part`` is not contained in ``whole`` ("" when it is)."""
    if part == "...":
        return ""
    if isinstance(part, dict):
        if not isinstance(whole, dict):
            return f"{path or 'top'}: expected an object"
        for key, value in part.items():
            if key not in whole:
                return f"{path}.{key}: missing"
            problem = _not_within(value, whole[key], f"{path}.{key}")
            if problem:
                return problem
        return ""
    if isinstance(part, list):
        if not isinstance(whole, list) or len(part) > len(whole):
            return f"{path}: expected a list of at least {len(part)}"
        for i, value in enumerate(part):
            problem = _not_within(value, whole[i], f"{path}[{i}]")
            if problem:
                return problem
        return ""
    return "" if part == whole else f"{path}: {whole!r}, not {part!r}"
