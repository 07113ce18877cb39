"""Machine definitions, one TOML file each; read them with :func:`engine.machines.load_machine`."""
