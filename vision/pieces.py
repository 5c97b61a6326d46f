"""Physical geometry of the pieces, in units of the block edge (shared by the renderer, the
synthetic label rasterizer and the flag fitting in reconstruction)."""

from __future__ import annotations

from dataclasses import dataclass


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
