"""``python -m refbench``: the ``refbench`` command."""

from refbench.cli import main

if __name__ == "__main__":
    main()
