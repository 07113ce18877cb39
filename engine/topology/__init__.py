"""Machines and their topologies: machine files, topology specs (flat, grids) and units."""
