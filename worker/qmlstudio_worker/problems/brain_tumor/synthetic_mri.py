"""SYNTHETIC T1-weighted, contrast-enhanced axial MRI-like slices with a brain tumor, drawn procedurally.

No package carries real brain MRI slices, so the brain tumor sample is drawn by this seeded generator. It is
not medical data: nothing here was scanned, and a model's accuracy on it says nothing about real tumors.

Every shape is defined in head coordinates (x and y from -1 to 1, y pointing down, as images are shown), so
one patient renders the same at 128x128 and at 512x512. A slice is: dark background; a bright scalp; the
dark skull; a thin CSF rim; the brain (grey matter cortex with folds around brighter white matter, smooth
low-frequency shading); two dark lateral ventricles; the tumor; Rician noise (magnitude of a complex
Gaussian signal, as in magnitude MR images).

The three classes differ in ways a model can learn (and that echo how they look on real T1+contrast scans):

- meningioma (label 1): extra-axial: a round, well-circumscribed (smooth edge), homogeneously bright mass
  sitting against the inner skull, anywhere around the convexity;
- glioma (label 2): intra-axial: inside a hemisphere, larger, with an irregular edge, a bright enhancing
  rim around a darker necrotic core, patchy inside, and a darker oedema halo around it (outside the mask);
- pituitary (label 3): small, round and bright on the midline, below the centre (towards the skull base).

A patient fixes the anatomy (head size and tilt, fold pattern, ventricles), the scanner (intensity gain,
noise level) and the tumor (position, size, edge shape, contrast); each of the patient's slices is a nearby
axial level: the tumor's cross-section and the ventricles change with it, with small position jitter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

MENINGIOMA, GLIOMA, PITUITARY = 1, 2, 3
# Tissue intensities before the patient's gain (raw units, in the range of Figshare's int16 images).
BACKGROUND, SCALP, SKULL, CSF, GREY, WHITE = 0.0, 250.0, 45.0, 70.0, 175.0, 235.0
FloatImage = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class Shape:
    """A closed blob: centre, radius, elongation and tilt, and an edge
    r(theta) = 1 + sum a_k cos(k theta + p_k)."""

    cx: float
    cy: float
    radius: float
    elongation: float
    angle: float
    harmonics: tuple[tuple[int, float, float], ...] = ()

    def distance(self, x: FloatImage, y: FloatImage) -> FloatImage:
        """Distance from the centre in units of the edge's radius at that angle: below 1 inside."""
        dx, dy = x - self.cx, y - self.cy
        cos, sin = np.cos(self.angle), np.sin(self.angle)
        u = (dx * cos + dy * sin) / (self.radius * self.elongation)
        v = (-dx * sin + dy * cos) / self.radius
        theta = np.arctan2(v, u)
        edge = np.ones_like(theta)
        for k, amplitude, phase in self.harmonics:
            edge += amplitude * np.cos(k * theta + phase)
        result: FloatImage = np.hypot(u, v) / edge
        return result

    def scaled(self, factor: float, dx: float = 0.0, dy: float = 0.0) -> Shape:
        return Shape(
            self.cx + dx, self.cy + dy, self.radius * factor, self.elongation, self.angle, self.harmonics
        )


@dataclass(frozen=True)
class Patient:
    """What stays the same across one patient's slices."""

    pid: str
    label: int
    head: Shape
    folds: tuple[tuple[int, float, float], ...]
    ventricle_size: float
    shading: tuple[tuple[float, float, float, float], ...]  # (fx, fy, phase, amplitude) sinusoids
    gain: float
    noise: float
    tumor: Shape
    tumor_brightness: float
    core_darkness: float  # glioma: the necrotic core's intensity relative to the rim


@dataclass(frozen=True)
class SyntheticSlice:
    image: np.ndarray[Any, np.dtype[np.float32]]  # (size, size) raw intensities, >= 0
    mask: np.ndarray[Any, np.dtype[np.bool_]]  # (size, size) True inside the tumor
    border: np.ndarray[Any, np.dtype[np.float32]]  # (k, 2) (x, y) pixel coordinates around the tumor


def _harmonics(
    rng: np.random.Generator, orders: range, amplitude: float
) -> tuple[tuple[int, float, float], ...]:
    return tuple(
        (k, float(rng.uniform(0.3, 1.0) * amplitude / k**0.5), float(rng.uniform(0, 2 * np.pi)))
        for k in orders
    )


def make_patient(rng: np.random.Generator, label: int, pid: str) -> Patient:
    """A patient of class ``label`` (1 meningioma, 2 glioma, 3 pituitary) drawn from ``rng``."""
    if label not in (MENINGIOMA, GLIOMA, PITUITARY):
        raise ValueError(f"label must be 1, 2 or 3, got {label}")
    head = Shape(
        cx=float(rng.normal(0, 0.02)),
        cy=float(rng.normal(0, 0.02)),
        radius=float(rng.uniform(0.80, 0.90)),
        elongation=float(rng.uniform(0.78, 0.88)),  # narrower left-right than front-back
        angle=float(rng.normal(0, 0.06)),
        harmonics=_harmonics(rng, range(2, 5), 0.02),
    )
    brain_radius = head.radius * 0.86
    if label == MENINGIOMA:
        # Against the inner skull: the centre lies one tumor radius inside the brain's edge.
        size = float(rng.uniform(0.10, 0.20))
        theta = float(rng.uniform(0, 2 * np.pi))
        reach = (brain_radius - size * 0.85) / brain_radius
        tumor = Shape(
            cx=head.cx + reach * brain_radius * head.elongation * np.cos(theta),
            cy=head.cy + reach * brain_radius * np.sin(theta),
            radius=size,
            elongation=float(rng.uniform(0.9, 1.25)),
            angle=theta,
            harmonics=_harmonics(rng, range(2, 4), 0.04),  # smooth, well circumscribed
        )
        brightness, core = float(rng.uniform(2.0, 2.4)), 1.0
    elif label == GLIOMA:
        size = float(rng.uniform(0.14, 0.27))
        side = float(rng.choice([-1.0, 1.0]))
        tumor = Shape(
            cx=head.cx + side * float(rng.uniform(0.18, 0.38)) * head.elongation,
            cy=head.cy + float(rng.uniform(-0.35, 0.30)),
            radius=size,
            elongation=float(rng.uniform(0.8, 1.3)),
            angle=float(rng.uniform(0, np.pi)),
            harmonics=_harmonics(rng, range(2, 8), 0.28),  # irregular, infiltrating edge
        )
        brightness, core = float(rng.uniform(1.7, 2.0)), float(rng.uniform(0.25, 0.45))
    else:
        size = float(rng.uniform(0.07, 0.11))
        tumor = Shape(
            cx=head.cx + float(rng.normal(0, 0.025)),
            cy=head.cy + float(rng.uniform(0.22, 0.38)),
            radius=size,
            elongation=float(rng.uniform(0.9, 1.3)),
            angle=float(rng.normal(0, 0.2)),
            harmonics=_harmonics(rng, range(2, 4), 0.05),
        )
        brightness, core = float(rng.uniform(1.9, 2.3)), 1.0
    shading = tuple(
        (
            float(rng.uniform(0.5, 2.5)),
            float(rng.uniform(0.5, 2.5)),
            float(rng.uniform(0, 2 * np.pi)),
            float(rng.uniform(0.02, 0.05)),
        )
        for _ in range(4)
    )
    return Patient(
        pid=pid,
        label=label,
        head=head,
        folds=_harmonics(rng, range(9, 17, 2), 0.09),
        ventricle_size=float(rng.uniform(0.8, 1.25)),
        shading=shading,
        gain=float(rng.uniform(0.8, 1.25)),
        noise=float(rng.uniform(3.0, 6.0)),
        tumor=tumor,
        tumor_brightness=brightness,
        core_darkness=core,
    )


def _soft_inside(distance: FloatImage, edge: float) -> FloatImage:
    """1 well inside a shape, 0 outside, a linear ramp of width ``edge`` (head units) at its boundary."""
    result: FloatImage = np.clip((1.0 - distance) / edge, 0.0, 1.0)
    return result


def border_points(mask: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The mask's edge pixels (inside, with a 4-neighbour outside) as (x, y), ordered by angle around the
    mask's centroid, as a border polygon is listed."""
    padded = np.pad(mask, 1)
    inner = padded[1:-1, 1:-1]
    edge = inner & ~(padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:])
    ys, xs = np.nonzero(edge)
    if xs.size == 0:
        return np.zeros((0, 2), dtype=np.float32)
    order = np.argsort(np.arctan2(ys - ys.mean(), xs - xs.mean()), kind="stable")
    return np.stack([xs[order], ys[order]], axis=1).astype(np.float32)


def render_slice(patient: Patient, rng: np.random.Generator, size: int, level: float = 0.0) -> SyntheticSlice:
    """One axial slice of ``patient`` at ``size`` x ``size`` pixels. ``level`` (-1..1) is the distance from
    the tumor's widest section: the tumor and the ventricles shrink away from 0."""
    coords = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    x, y = np.meshgrid(coords, coords)
    edge = 2.5 / size + 0.004  # about one pixel of anti-aliasing at any size

    head = patient.head.scaled(1.0 - 0.04 * level**2)
    head_d = head.distance(x, y)
    image = SCALP * _soft_inside(head_d, edge)
    for threshold, value in ((0.93, SKULL), (0.89, CSF)):
        inside = _soft_inside(head_d / threshold, edge)
        image = image * (1 - inside) + value * inside
    brain = _soft_inside(head_d / 0.86, edge)
    folds = Shape(head.cx, head.cy, head.radius * 0.70, head.elongation, head.angle, patient.folds)
    white = _soft_inside(folds.distance(x, y), 0.03)
    tissue = GREY + (WHITE - GREY) * white
    image = image * (1 - brain) + tissue * brain

    stretch = patient.ventricle_size * (1.0 - 0.35 * abs(level))
    for side in (-1.0, 1.0):
        ventricle = Shape(
            cx=head.cx + side * 0.1 * stretch,
            cy=head.cy - 0.06,
            radius=0.17 * stretch,
            elongation=0.35,
            angle=float(-side * 0.3),
        )
        inside = _soft_inside(ventricle.distance(x, y), 0.05)
        image = image * (1 - inside) + CSF * inside

    jitter = rng.normal(0, 0.012, size=2)
    section = float(np.sqrt(max(0.0, 1.0 - 0.55 * level**2)))
    tumor = patient.tumor.scaled(section, float(jitter[0]), float(jitter[1]))
    tumor_d = tumor.distance(x, y)
    # Inside the skull: a meningioma presses against it, never through it.
    intracranial = _soft_inside(head_d / 0.89, edge)
    mask = (tumor_d < 1.0) & (head_d < 0.89)
    lesion = _soft_inside(tumor_d, edge / tumor.radius) * intracranial
    glow = GREY * patient.tumor_brightness
    if patient.label == GLIOMA:
        halo = _soft_inside(tumor_d / 1.45, 0.25) * (1 - lesion) * brain  # oedema: darker, outside the mask
        image = image * (1 - 0.22 * halo)
        core = _soft_inside(tumor_d / 0.62, 0.3)
        patches = 1.0 + 0.18 * np.sin(9 * x + 3 * np.cos(7 * y + float(rng.uniform(0, 6))))
        glow = glow * ((1 - core) + patient.core_darkness * core) * patches
    image = image * (1 - lesion) + glow * lesion

    shading = np.ones_like(image)
    for fx, fy, phase, amplitude in patient.shading:
        shading += amplitude * np.sin(np.pi * (fx * x + fy * y) + phase)
    signal = image * shading * patient.gain
    real = signal + rng.normal(0.0, patient.noise, size=signal.shape)
    imaginary = rng.normal(0.0, patient.noise, size=signal.shape)
    magnitude = np.hypot(real, imaginary).astype(np.float32)
    return SyntheticSlice(image=magnitude, mask=mask, border=border_points(mask))
