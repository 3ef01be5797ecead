"""`npm run bench:brain`: the brain tumor training benchmark of issue #13 (a benchmark, not a timed test).

1. Training throughput: images per second of one training step (forward, backward, optimizer step;
   batch 16, Adam) for each model at its default input size (``bio.models.DEFAULT_INPUT_SIZE``) on
   random inputs, the median of ``STEPS`` timed steps after a warm-up step, torch on 1 thread as in the
   job. The QCNN is measured at the form's default (4 qubits, depth 3, 2x2 patches, stride 1) and at 10
   qubits; the QSVM is its embedding network's (the FCN) training step plus the time to fit the
   quantum-kernel SVM on ``QSVM_ROWS`` slices (the kernel rows the handler uses at most).
2. Memory: the peak resident set (ru_maxrss) of a whole training job, ``python -m qmlstudio_worker run``
   in a child process, on slices 1 to 1000 of the shipped synthetic sample (samples/brain_tumor_dataset.mat)
   for 1 epoch (target: under 4 GB), with its wall time.

Sections: ``python tests/bench/brain-tumor-bench.py [throughput] [memory]`` (both by default).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "worker"))

BATCH = 16
STEPS = 5
QSVM_ROWS = 400
SAMPLE = REPO / "samples" / "brain_tumor_dataset.mat"
MEMORY_RANGE = (1, 1000)


def step_seconds(model: Any, x: Any, y: Any) -> float:
    import torch

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    times = []
    for i in range(STEPS + 1):
        started = time.perf_counter()
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        if i > 0:  # the first step warms up the allocator and kernels
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def throughput() -> list[tuple[str, str, str]]:
    import numpy as np
    import torch

    from qmlstudio_worker.problems.brain_tumor.models import DEFAULT_INPUT_SIZE, build_model
    from qmlstudio_worker.problems.brain_tumor.qsvm import fit_qsvm

    torch.set_num_threads(1)  # as the training job (handlers/brain_tumor.py TORCH_THREADS)
    rows = []
    cases = [
        ("densenet121", {}),
        ("FCN", {}),
        ("3D_CNNs", {}),
        ("QCNN", {"n_qubits": 4}),
        ("QCNN", {"n_qubits": 10}),
        ("QSVM", {}),
    ]
    for name, config in cases:
        torch.manual_seed(0)
        size = DEFAULT_INPUT_SIZE[name]
        shape = (BATCH, 1, 3, size, size) if name == "3D_CNNs" else (BATCH, 1, size, size)
        x, y = torch.rand(shape), torch.randint(0, 3, (BATCH,))
        model = build_model("FCN" if name == "QSVM" else name, config)
        seconds = step_seconds(model, x, y)
        label = name + (f" ({config['n_qubits']} qubits)" if config else "")
        note = f"{size}x{size}" + (" x3 slices" if name == "3D_CNNs" else "")
        if name == "QSVM":
            labels = np.arange(QSVM_ROWS) % 3
            inputs = (
                torch.rand(QSVM_ROWS, 1, size, size) * 0.5 + torch.tensor(labels).reshape(-1, 1, 1, 1) * 0.2
            )
            started = time.perf_counter()
            fit_qsvm(model, inputs, labels.tolist(), n_qubits=4, reps=3, seed=0)
            note += (
                f"; kernel SVM fit on {QSVM_ROWS} slices (4 qubits): {time.perf_counter() - started:.1f} s"
            )
        rows.append((label, f"{BATCH / seconds:.1f}", note))
        print(f"  {label}: {BATCH / seconds:.1f} images/s", file=sys.stderr, flush=True)
    return rows


def memory(model_name: str, extra: dict[str, Any]) -> tuple[str, str, str, str]:
    if not SAMPLE.is_file():
        raise SystemExit(f"{SAMPLE} is missing: run make install (it writes the sample)")
    quantum = model_name in ("QCNN", "QSVM")
    params: dict[str, Any] = {
        "id": 1,
        "batch_size": 16,
        "epochs": 1,
        "learning_rate": 0.001,
        "optimizer": "adam",
        "training_model_type": "quantum" if quantum else "classical",
        "model_name": model_name,
        "loss_function": "sparse_categorical_crossentropy",
        **extra,
    }
    envelope = {
        "kind": "brain-tumor",
        "job_id": "bench",
        "params": params,
        "extension": {
            "dataset": {
                "path": str(SAMPLE),
                "sha256": hashlib.sha256(SAMPLE.read_bytes()).hexdigest(),
                "row_count": 3064,
                "columns": [],
                "label": "Sample Dataset 1 (2020-2024) (synthetic)",
                "synthetic": True,
            },
            "range": {"start": MEMORY_RANGE[0], "end": MEMORY_RANGE[1]},
            "split": "stratified",
            "seed": 42,
        },
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [str(REPO / "worker" / ".venv" / "bin" / "python"), "-m", "qmlstudio_worker", "run"],
        input=json.dumps(envelope),
        capture_output=True,
        text=True,
        cwd=REPO / "worker",
        check=False,
    )
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    last = lines[-1] if lines else {"type": "none", "message": done.stderr[-500:]}
    if last["type"] != "result":
        raise SystemExit(f"{model_name}: the job failed: {last}")
    epoch = last["data"]["training_data"]["epoch_seconds"][0]
    # ru_maxrss of the children is the largest child's: a smaller job after a larger one shows the larger.
    note = "" if peak_kb > before else "(not above an earlier child's peak; run this section alone)"
    return (model_name, f"{peak_kb / 1024**2:.2f} GB {note}".strip(), f"{seconds:.0f} s", f"{epoch:.0f} s")


def table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(row: tuple[str, ...]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), rule, *map(line, rows)])


def main(argv: list[str]) -> None:
    sections = argv or ["throughput", "memory"]
    # Other processes share the CPU: the load average says how far the figures are from an idle machine.
    print(f"CPU: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    if "throughput" in sections:
        print("Training throughput (batch 16; a step = forward + backward + Adam; median of 5; 1 thread)")
        print(table(("Model", "Images/s", "Input"), throughput()))
        print()
    if "memory" in sections:
        start, end = MEMORY_RANGE
        print(f"Training job on slices {start}-{end} of the synthetic sample, 1 epoch (peak RSS of the job)")
        rows = [memory("densenet121", {})]
        print(table(("Model", "Peak memory", "Job wall time", "Epoch time"), rows))


if __name__ == "__main__":
    main(sys.argv[1:])
