"""Machine definitions, one TOML file each; read them with
:func:`meshsim.engine.topology.machines.load_machine`."""
