"""``python -m meshsim`` is the ``meshsim`` command."""

from meshsim.cli.main import main

main()
