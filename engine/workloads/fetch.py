"""``meshsim trace fetch NAME``: download a named trace of the Parallel Workloads Archive into the
user's cache, verify it, and report plainly when there is no network.

Verification: the download must be a gzip stream that decompresses, its header must name the
expected computer, and it must hold the expected number of job records (the archive's own counts). A
file is written under a temporary name and renamed only once verified, so a broken download never
poses as a trace. The cache is ``$MESHSIM_CACHE`` or ``$XDG_CACHE_HOME/meshsim`` or
``~/.cache/meshsim``, with traces under ``traces/``."""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.writing import Staged, make_folder

ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload"


@dataclass(frozen=True)
class KnownTrace:
    """A trace of the archive: where it lives and what a correct copy holds."""

    name: str
    path: str
    computer: str
    jobs: int
    note: str = ""

    @property
    def file_name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


KNOWN_TRACES: Registry[KnownTrace] = Registry("archive trace")

for _trace in (
    KnownTrace(
        "ANL-Intrepid-2009-1",
        "l_anl_int/ANL-Intrepid-2009-1.swf.gz",
        "Blue Gene/P",
        68936,
        "Intrepid, January-September 2009 (Tang et al., seed 000)",
    ),
    KnownTrace(
        "SDSC-Par-1995",
        "l_sdsc_par/SDSC-Par-1995-3.1-cln.swf.gz",
        "Intel Paragon",
        53970,
        "SDSC Paragon 1995 (Wan et al., seed 004)",
    ),
    KnownTrace(
        "SDSC-Par-1996",
        "l_sdsc_par/SDSC-Par-1996-3.1-cln.swf.gz",
        "Intel Paragon",
        32135,
        "SDSC Paragon 1996 (Wan et al., seed 004)",
    ),
    KnownTrace(
        "NASA-iPSC-1993",
        "l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz",
        "Intel iPSC/860",
        18239,
        "NASA Ames iPSC/860, October-December 1993",
    ),
):
    KNOWN_TRACES.register(_trace.name)(_trace)


def cache_dir() -> Path:
    """Where fetched traces live."""
    root = os.environ.get("MESHSIM_CACHE")
    if root:
        return Path(root) / "traces"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "meshsim" / "traces"


def cached(name: str) -> Path | None:
    """The cached copy of trace ``name``, if it has been fetched."""
    if name not in KNOWN_TRACES:
        return None
    path = cache_dir() / KNOWN_TRACES.get(name).file_name
    return path if path.exists() else None


def fetch(
    name: str, *, base_url: str = ARCHIVE, timeout: float = 30.0, force: bool = False
) -> Path:
    """Download trace ``name`` (unless cached), verify it, and return its path. (``urllib`` is
    imported here: most runs never download, and it costs start-up time.)"""
    import urllib.error
    import urllib.request

    trace = KNOWN_TRACES.get(name)
    target = cache_dir() / trace.file_name
    if target.exists() and not force:
        return target
    make_folder(target.parent)
    url = f"{base_url.rstrip('/')}/{trace.path}"
    staged = Staged(target)
    try:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                while chunk := response.read(1 << 20):
                    staged.write(chunk)
        except urllib.error.HTTPError as exc:
            raise MeshsimError(
                f"cannot fetch {name}: {url} answered {exc.code} {exc.reason}"
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise MeshsimError(
                f"cannot fetch {name}: no connection to {url} ({reason}); "
                f"download it by hand and pass the file to --workload"
            ) from None
        staged.finish()
        _verify(staged.written, trace)
        staged.replace()
    finally:
        staged.discard()
    return target


def _verify(path: Path, trace: KnownTrace) -> None:
    try:
        with gzip.open(path, "rb") as fh:
            while fh.read(1 << 20):
                pass
    except (OSError, EOFError) as exc:
        raise MeshsimError(f"fetched {trace.name} is not a valid gzip file ({exc})") from None
    parsed = read_swf(path, lenient=True)
    computer = parsed.header.computer or ""
    if trace.computer.lower() not in computer.lower():
        raise MeshsimError(
            f"fetched {trace.name} describes computer '{computer}', expected '{trace.computer}'"
        )
    found = len(parsed) + len(parsed.malformed)
    if found != trace.jobs:
        raise MeshsimError(f"fetched {trace.name} holds {found} job records, expected {trace.jobs}")
