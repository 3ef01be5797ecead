"""The README names only paths that exist (house style: docs name only scripts and paths that exist)."""

from __future__ import annotations

import re

from conftest import REPO_ROOT, WORKER_DIR

README = (WORKER_DIR / "README.md").read_text(encoding="utf-8")
PATH_PATTERN = re.compile(r"`((?:worker/|tests/|qmlstudio_worker/)[^`\s<>]+)`")


def test_readme_paths_exist() -> None:
    paths = set(PATH_PATTERN.findall(README))
    assert len(paths) > 5
    missing = []
    for path in sorted(paths):
        base = WORKER_DIR if path.startswith("qmlstudio_worker/") else REPO_ROOT
        if not (base / path).exists():
            missing.append(path)
    assert missing == []


def test_readme_install_commands_match_the_lock_file() -> None:
    assert "worker/.venv/bin/pip install -r worker/requirements.lock" in README
    assert "worker/.venv/bin/pip install --no-deps -e ./worker" in README
    lock = (WORKER_DIR / "requirements.lock").read_text(encoding="utf-8").splitlines()
    assert "torch==2.13.0+cpu" in lock
