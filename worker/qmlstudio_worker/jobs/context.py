"""What a handler gets besides its params."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qmlstudio_worker.protocol import Emitter


@dataclass
class JobContext:
    job_id: str
    emitter: Emitter
    output_dir: Path | None = None
    # The envelope's ``extension`` (schemas/job-envelope.schema.json): the resolved dataset
    # (``extension["dataset"]["path"]`` etc.), normalization, missing_values, target_column and seed.
    # Empty for worker kinds such as self-test.
    extension: dict[str, Any] = field(default_factory=dict)

    def artifact_dir(self) -> Path | None:
        """The job's output directory, created on first use; None when the job has none."""
        if self.output_dir is None:
            return None
        self.output_dir.mkdir(parents=True, exist_ok=True)
        return self.output_dir
