"""The ``meshsim`` command line (Typer); it imports the console only for ``meshsim tui``."""
