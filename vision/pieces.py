"""Physical geometry of the pieces, in units of the block edge (shared by the renderer, the
synthetic label rasterizer and the flag fitting in reconstruction)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class FlagGeometry:
    """A flag: a thin pole from the centre of the face it is plugged into, along its direction,
    with a banner near the tip.  Everything stays inside the flag's cell."""

    pole_length: float = 0.93
    pole_radius: float = 0.05
    banner_from: float = 0.53  # along the pole, where the banner starts
    banner_to: float = 0.93  # and ends
    banner_width: float = 0.46  # how far the banner sticks out sideways from the pole (any side)


FLAG = FlagGeometry()


def face_corners(cell: tuple[int, int, int], n: tuple[int, int, int]) -> npt.NDArray[np.float64]:
    """The 4 corners (block units, shape (4, 3), in order around the face) of the face of ``cell``
    whose outward normal is the unit direction ``n``."""
    c = np.array([cell[0] + 0.5 + 0.5 * n[0], cell[1] + 0.5 + 0.5 * n[1], cell[2] + 0.5 + 0.5 * n[2]])
    axes = [i for i in range(3) if n[i] == 0]
    a = np.zeros(3)
    b = np.zeros(3)
    a[axes[0]] = 0.5
    b[axes[1]] = 0.5
    return np.stack([c - a - b, c + a - b, c + a + b, c - a + b])
