"""QML Studio compute worker.

A worker process runs one job: ``python -m qmlstudio_worker run`` reads a JSON job envelope on stdin and
writes protocol lines (one JSON object per line) on stdout. See README.md and ``protocol.py``.
"""

__version__ = "0.1.0"
