"""Exceptions that the runner turns into protocol ``error`` lines."""

from __future__ import annotations


class JobValidationError(Exception):
    """The job (envelope or params) is not acceptable: reported as an error line of kind "validation"
    and exit code 2. ``field`` names the offending field as a JSON pointer into the envelope
    (``/params/shots``, ``/job_id``, ``/params/layers/2``), or is None when the job as a whole is wrong."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
