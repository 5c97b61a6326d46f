"""A tiny low-sample render through the real path tracer (slow; needs the [render] extra)."""

from __future__ import annotations

import numpy as np
import pytest

from boardside.fixtures_render.camera import intrinsics, look_at, make_camera
from boardside.fixtures_render.mitsuba_backend import renderer_available
from boardside.fixtures_render.scene import (
    Lighting,
    Material,
    Part,
    PieceLook,
    SceneSpec,
    add_ctrl_pieces,
    add_mat,
    add_table,
    apply_lighting,
)
from boardside.fixtures_render.sensor import SensorEffects, develop

pytestmark = pytest.mark.slow


def test_tiny_render_matches_its_ground_truth() -> None:
    available, why = renderer_available()  # checked here, not at collection: the fast suite never loads LLVM
    if not available:
        pytest.skip(f"fixture renderer not installed: {why}")
    from boardside.fixtures_render.mitsuba_backend import render
    from boardside.fixtures_render.sets import mat_texture

    rng = np.random.default_rng(3)
    state = {
        "game": "ctrl",
        "blocks": [
            {"cell": [1, -1, 0], "color": "blue"},
            {"cell": [3, 1, 0], "color": "pink"},
            {"cell": [1, 1, 3], "color": "yellow"},
        ],
        "flags": [{"color": "blue", "cell": [1, -1, 1], "points": "+z"}],
    }
    spec = SceneSpec()
    add_ctrl_pieces(spec, state, PieceLook.sample(rng), 22.0, rng)
    mat_spec, mat_img = mat_texture(px_per_mm=2.0)
    add_mat(spec, mat_img, mat_spec.paper_world_rect(), 2.0, 0.3)
    add_table(spec, "oak", rng)
    # a cylinder with its cap (non-mesh Mitsuba shapes: labelled through Dr.Jit registry ids)
    spec.add(
        Part("probe", Material("plastic", (0.6, 0.1, 0.1)), cylinder=((33.0, 150.0, 0.0), (33.0, 150.0, 30.0), 15.0))
    )
    lighting = Lighting.sample(rng, (33.0, 33.0))
    apply_lighting(spec, lighting)
    K = intrinsics(320, 180, 70)
    R, t = look_at([90.0, -120.0, 420.0], [33.0, 33.0, 30.0])  # high: every top face in sight
    cam = make_camera(320, 180, K, (-0.2, 0.05, 0.0, 0.0, 0.0), R, t)
    res = render(spec, cam, spp=2, seed=1)
    assert res.linear.shape == (180, 320, 3) and np.isfinite(res.linear).all()
    assert res.linear.mean() > 0
    assert res.part_index is not None
    # the label pass agrees with the recorded camera: a point of each block's top face projects
    # onto that block, and the mat's clear area onto the mat
    for i, part in enumerate(spec.parts):
        if part.label.get("kind") == "block":
            x, y, z = part.label["cell"]
            u, v = cam.project([[(x + 0.75) * 22, (y + 0.5) * 22, (z + 1) * 22 - 0.5]])[0]  # off the socket/flag
            assert res.part_index[round(v), round(u)] == i, part.label
    u, v = cam.project([[33.0, 150.0, 30.0]])[0]
    probe = next(i for i, p in enumerate(spec.parts) if p.name == "probe")
    assert res.part_index[round(v), round(u)] == probe
    u, v = cam.project([[33.0, 110.0, 0.0]])[0]
    mat_index = next(i for i, p in enumerate(spec.parts) if p.name == "mat")
    assert res.part_index[round(v), round(u)] == mat_index
    bgr = develop(res.linear, SensorEffects.sample(rng, lighting.dim), rng)
    assert bgr.dtype == np.uint8 and bgr.shape == (180, 320, 3) and 20 < bgr.mean() < 235
