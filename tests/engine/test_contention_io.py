"""The [io] machine section, the bundled tflops and paragon-io machines, I/O node placement."""

from pathlib import Path

import pytest

import meshsim.engine.topology.grid  # noqa: F401  (registers the mesh topology)
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.contention.io import IOLayout, balance_boundary, io_rows
from meshsim.engine.topology.machines import load_machine


def test_tflops_machine() -> None:
    m = load_machine("tflops")
    assert (m.topology, m.spec.dims, m.nodes) == ("mesh", (32, 32), 1024)
    io = m.extras["io"]
    assert (io.count, io.link_mb_s, io.node_mb_s, io.side, io.routing) == (
        32,
        380.0,
        64.0,
        "west",
        "xy",
    )
    assert io.f == pytest.approx(5.94, abs=0.01)
    layout = IOLayout.from_machine(m)
    assert layout.rows == tuple(range(32)) and layout.boundary == 16


def test_paragon_io_machine() -> None:
    """Ch. VII: 16 × 22 compute nodes, 16 I/O nodes vertically on the west side (L2260)."""
    m = load_machine("paragon-io")
    assert (m.spec.dims, m.nodes, m.default_allocator) == ((22, 16), 352, "m2db")
    layout = IOLayout.from_machine(m)
    assert (layout.width, layout.height, layout.count, layout.boundary) == (22, 16, 16, 8)
    assert balance_boundary(m) == 8


def write(tmp_path: Path, body: str, topology: str = "mesh") -> Path:
    path = tmp_path / "m.toml"
    path.write_text(
        f'[machine]\nname = "t"\ntopology = "{topology}"\n[topology]\ndims = [4, 6]\n' + body
    )
    return path


def test_io_section_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(MeshsimError, match=r"key 'io\.bogus': unknown key"):
        load_machine(str(write(tmp_path, "[io]\ncount=2\nlink_mb_s=1\nnode_mb_s=1\nbogus=1\n")))
    with pytest.raises(MeshsimError, match=r"key 'io\.count'"):
        load_machine(str(write(tmp_path, "[io]\nlink_mb_s=1\nnode_mb_s=1\n")))
    with pytest.raises(MeshsimError, match=r"key 'io\.link_mb_s': must be greater than 0"):
        load_machine(str(write(tmp_path, "[io]\ncount=2\nlink_mb_s=0\nnode_mb_s=1\n")))
    with pytest.raises(MeshsimError, match=r"key 'io\.placement'"):
        load_machine(
            str(write(tmp_path, '[io]\ncount=2\nlink_mb_s=1\nnode_mb_s=1\nplacement="x"\n'))
        )
    with pytest.raises(MeshsimError, match=r"key 'io': I/O nodes need topology 'mesh'"):
        load_machine(str(write(tmp_path, "[io]\ncount=2\nlink_mb_s=1\nnode_mb_s=1\n", "torus")))
    with pytest.raises(MeshsimError, match=r"key 'io\.count': 7 I/O nodes do not fit"):
        load_machine(str(write(tmp_path, "[io]\ncount=7\nlink_mb_s=1\nnode_mb_s=1\n")))


def test_io_placement() -> None:
    assert io_rows(16, 16) == tuple(range(16))
    assert io_rows(16, 8) == tuple(range(4, 12))
    assert io_rows(16, 4, "spread") == (2, 6, 10, 14)
    assert io_rows(16, 16, "spread") == tuple(range(16))
    assert IOLayout.square(16, 8).boundary == 8
    with pytest.raises(MeshsimError):
        io_rows(4, 5)
    with pytest.raises(MeshsimError, match="unknown I/O placement"):
        io_rows(4, 2, "random")


def test_balance_boundary_without_io(tmp_path: Path) -> None:
    m = load_machine(str(write(tmp_path, "")))
    assert balance_boundary(m) == 3
    with pytest.raises(MeshsimError, match="no \\[io\\] section"):
        IOLayout.from_machine(m)
