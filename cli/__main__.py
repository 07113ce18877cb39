"""``python -m cli`` is ``meshsim``."""

from cli.main import main

main()
