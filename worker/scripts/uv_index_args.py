"""Prints pip's own index settings as uv options, one per line: `make` installs the venv with uv.

    uv pip install $(python3 worker/scripts/uv_index_args.py) -r worker/requirements.lock

uv reads neither pip.conf nor PIP_* variables, so without this it would look only at PyPI and ignore this
machine's local indexes, wheel directories and constraints (here /opt/wheels with the CPU build of torch,
file:///opt/pypi*/simple and /etc/xdg/pip/constraints.txt). Read from `pip config list` (every pip.conf and
PIP_* variable pip itself applies): index-url, extra-index-url, find-links and constraint, in any section
pip applies to `install` (global, install, or a variable). Versions come from the lock's == pins, so where
a package comes from never changes what is installed; --index-strategy unsafe-best-match lets uv pick a
pinned version from whichever index has it, as pip does.
"""

from __future__ import annotations

import ast
import subprocess
import sys

OPTIONS = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}


def pip_config() -> list[tuple[str, str]]:
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    settings = []
    for line in listed.splitlines():
        key, sep, raw = line.partition("=")
        if not sep:
            continue
        section, _, name = key.rpartition(".")
        if section not in {"global", "install", ":env:"}:
            continue
        try:
            value = ast.literal_eval(raw)
        except (SyntaxError, ValueError):
            value = raw
        settings.append((name, str(value)))
    return settings


def uv_args(settings: list[tuple[str, str]]) -> list[str]:
    args: list[str] = []
    seen: set[tuple[str, str]] = set()
    for name, value in settings:
        option = "--constraint" if name == "constraint" else OPTIONS.get(name)
        if option is None:
            continue
        for item in value.split():
            if (option, item) not in seen:
                seen.add((option, item))
                args += [option, item]
    return [*args, "--index-strategy", "unsafe-best-match"]


if __name__ == "__main__":
    print("\n".join(uv_args(pip_config())))
