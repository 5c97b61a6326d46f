"""benchmarks/ctrl_colour_split.py (session 16): the block face a ray enters by."""

from __future__ import annotations

import numpy as np

from benchmarks import ctrl_colour_split as split


def test_entry_face_of_a_ray() -> None:
    cell = (2, -1, 0)  # occupies [2, 3] x [-1, 0] x [0, 1] in block units
    down = np.array([0.0, 0.0, -1.0])
    assert split._entry_face(np.array([2.5, -0.5, 5.0]), down, cell) == "+z"  # from above: the top
    assert split._entry_face(np.array([6.0, -0.5, 0.5]), np.array([-1.0, 0.0, 0.0]), cell) == "+x"
    assert split._entry_face(np.array([2.5, -4.0, 0.5]), np.array([0.0, 1.0, 0.0]), cell) == "-y"
    slant = np.array([-1.0, 0.0, -0.2])
    slant /= np.linalg.norm(slant)
    assert split._entry_face(np.array([5.0, -0.5, 1.1]), slant, cell) == "+x"  # a low picture: the side face
