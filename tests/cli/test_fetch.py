"""``meshsim trace fetch`` against a real HTTP server on 127.0.0.1 (no mocks)."""

import gzip
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import NASA, require_trace


@pytest.fixture
def archive(tmp_path):
    """A local copy of the archive layout, served over HTTP."""
    root = tmp_path / "archive"
    (root / "l_nasa_ipsc").mkdir(parents=True)
    data = require_trace(NASA).read_bytes()
    (root / "l_nasa_ipsc" / "NASA-iPSC-1993-3.1-cln.swf.gz").write_bytes(gzip.compress(data))
    (root / "l_sdsc_par").mkdir()
    (root / "l_sdsc_par" / "SDSC-Par-1995-3.1-cln.swf.gz").write_bytes(gzip.compress(data))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def meshsim(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"MESHSIM_CACHE": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, env=env
    )


def test_fetch_verifies_and_caches(tmp_path, archive):
    cache = tmp_path / "cache"
    done = meshsim(cache, "trace", "fetch", "NASA-iPSC-1993", "--base-url", archive)
    assert done.returncode == 0, done.stderr
    path = cache / "traces" / "NASA-iPSC-1993-3.1-cln.swf.gz"
    assert path.exists()
    listing = meshsim(cache, "trace", "fetch", "--list")
    assert "NASA-iPSC-1993" in listing.stdout and "yes" in listing.stdout
    run = meshsim(cache, "run", "--machine", "flat:128", "--workload", "NASA-iPSC-1993", "--quiet")
    assert run.returncode == 0, run.stderr


def test_fetch_rejects_a_wrong_file(tmp_path, archive):
    cache = tmp_path / "cache"
    done = meshsim(cache, "trace", "fetch", "SDSC-Par-1995", "--base-url", archive)
    assert done.returncode == 1
    assert "describes computer 'Intel iPSC/860', expected 'Intel Paragon'" in done.stderr
    assert not (cache / "traces" / "SDSC-Par-1995-3.1-cln.swf.gz").exists()
    assert not list((cache / "traces").glob("*.part"))


def test_fetch_reports_missing_files_and_no_network(tmp_path, archive):
    cache = tmp_path / "cache"
    done = meshsim(cache, "trace", "fetch", "ANL-Intrepid-2009-1", "--base-url", archive)
    assert done.returncode == 1 and "answered 404" in done.stderr
    dead = meshsim(
        cache, "trace", "fetch", "ANL-Intrepid-2009-1", "--base-url", "http://127.0.0.1:9"
    )
    assert dead.returncode == 1
    assert "no connection to http://127.0.0.1:9" in dead.stderr
    assert len(dead.stderr.strip().splitlines()) == 1
    unknown = meshsim(cache, "trace", "fetch", "Mystery-2020")
    assert "unknown archive trace 'Mystery-2020' (valid: ANL-Intrepid-2009-1" in unknown.stderr
