"""A sphere light never encloses the camera (session 9: a camera inside an emitting sphere saw only
its unlit inside, and about 1 % of the board renders came out black; the readers rightly rejected
them as too dark, and the benchmarks counted every cell of them wrong)."""

from __future__ import annotations

import pytest

from boardside.fixtures_render.scene import Light

mitsuba_backend = pytest.importorskip("boardside.fixtures_render.mitsuba_backend")


def test_a_sphere_around_the_camera_is_shrunk_to_leave_it_outside() -> None:
    # held-out board render of session 9: radius 332 mm, camera 264 mm from the light's centre
    li = Light("sphere", (-195.5, 380.6, 794.6), 332.2, 5591.0, 0.631)
    eye = (-125.0, 371.0, 537.0)
    r = mitsuba_backend.sphere_radius_outside(li, eye)
    dist = ((-195.5 + 125.0) ** 2 + (380.6 - 371.0) ** 2 + (794.6 - 537.0) ** 2) ** 0.5
    assert r < dist
    assert r == pytest.approx(0.8 * dist)


def test_a_sphere_away_from_the_camera_keeps_its_size() -> None:
    li = Light("sphere", (0.0, 0.0, 900.0), 300.0, 5000.0, 1.0)
    assert mitsuba_backend.sphere_radius_outside(li, (0.0, 600.0, 400.0)) == 300.0
