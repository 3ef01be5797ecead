"""Entry point for ``python -m qmlstudio_worker``."""

from qmlstudio_worker.cli import main

raise SystemExit(main())
