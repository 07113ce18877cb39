"""Machine definitions, one TOML file each; read them with
:func:`meshsim.engine.machines.load_machine`."""
