"""Scene geometry and the virtual camera: fast checks that need neither the renderer nor fixtures."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from boardside.fixtures_render.camera import (
    CameraModel,
    distortion_is_monotonic,
    ideal_rays,
    intrinsics,
    look_at,
    make_camera,
    source_view,
)
from boardside.fixtures_render.geometry import rounded_box, socket_maps
from boardside.fixtures_render.scene import Part, PieceLook, SceneSpec, add_ctrl_pieces, kelvin_to_rgb
from boardside.fixtures_render.sets import SETS, Device, view_pose, visible_faces


def test_rounded_box_is_closed_outward_and_inside_its_size() -> None:
    m = rounded_box((20.0, 10.0, 6.0), 1.5)
    assert np.all(np.abs(m.vertices) <= np.array([10, 5, 3]) + 1e-4)
    # every face reaches its plane, normals point outward, UVs cover [0, 1]
    assert np.isclose(m.vertices[:, 0].max(), 10.0) and np.isclose(m.vertices[:, 2].min(), -3.0)
    assert np.all(np.einsum("ij,ij->i", m.normals, m.vertices) > 0)
    assert m.uvs.min() >= 0 and m.uvs.max() <= 1
    # triangle winding agrees with the normals (Mitsuba's geometric normal)
    v = m.vertices[m.faces]
    gn = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    centre = v.mean(axis=1)
    assert np.mean(np.einsum("ij,ij->i", gn, centre) > 0) > 0.99


def test_socket_maps_have_a_dark_hole_per_cell() -> None:
    shade, normal = socket_maps(3, px_per_cell=48)
    assert shade.shape == (144, 144, 1) and normal.shape == (144, 144, 3)
    for i in range(3):
        for j in range(3):
            assert shade[24 + 48 * i, 24 + 48 * j, 0] < 0.4  # hole centre
            assert shade[2 + 48 * i, 2 + 48 * j, 0] > 0.95  # face corner


def test_kelvin_runs_from_warm_to_cool() -> None:
    warm, cool = kelvin_to_rgb(2700), kelvin_to_rgb(6500)
    assert warm[0] / warm[2] > 3 > 1.2 > cool[0] / cool[2]


def test_look_at_puts_the_target_on_the_principal_point() -> None:
    K = intrinsics(1280, 720, 70)
    R, t = look_at([400.0, -100.0, 300.0], [33.0, 33.0, 20.0], roll_deg=0.0)
    cam = make_camera(1280, 720, K, (0, 0, 0, 0, 0), R, t)
    u, v = cam.project([[33.0, 33.0, 20.0]])[0]
    assert abs(u - K[0, 2]) < 1e-6 and abs(v - K[1, 2]) < 1e-6
    # z up in the world is "up" in the picture (smaller row)
    assert cam.project([[33.0, 33.0, 60.0]])[0][1] < v
    assert np.allclose(cam.centre, [400.0, -100.0, 300.0])
    assert CameraModel.from_json(cam.to_json()).project([[0.0, 0.0, 0.0]]) == pytest.approx(
        cam.project([[0.0, 0.0, 0.0]]), abs=1e-3
    )


def test_distortion_remap_is_exactly_the_recorded_brown_conrady_model() -> None:
    """Pixel p of the output samples the source at the ray that cv2.projectPoints sends to p."""
    K = intrinsics(320, 180, 80, (3.0, -2.0))
    dist = (-0.3, 0.09, 0.001, -0.0007, 0.0)
    assert distortion_is_monotonic(K, dist, 320, 180)
    R, t = look_at([300.0, 0.0, 200.0], [0.0, 0.0, 0.0])
    cam = make_camera(320, 180, K, dist, R, t)
    x, y = ideal_rays(cam)
    rays = np.stack([x.ravel(), y.ravel(), np.ones(x.size)], axis=1)
    img, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K, np.asarray(dist))
    uu, vv = np.meshgrid(np.arange(320.0), np.arange(180.0))
    err = np.hypot(img[:, 0, 0] - uu.ravel(), img[:, 0, 1] - vv.ravel())
    assert err.max() < 1e-3
    view = source_view(cam)
    assert view.map_x.min() >= 0 and view.map_x.max() <= view.width - 1
    assert view.hfov_deg > 80  # barrel distortion: the undistorted source must be wider


def test_every_sampled_device_has_a_sane_lens_and_fov() -> None:
    rng = np.random.default_rng(5)
    for _ in range(40):
        d = Device.sample(rng)
        assert 55 <= d.hfov_deg <= 90
        assert distortion_is_monotonic(np.asarray(d.K), d.dist, 1280, 720)


@pytest.mark.parametrize("side", ["+x", "-x", "+y", "-y", "top", "+x low", "-x low", "+y low", "-y low"])
def test_view_pose_shows_the_named_side(side: str) -> None:
    """Each of the five views a player takes, and the low views (``fixtures render --low-views``: 12-20 deg,
    straight at the side), looks at its side."""
    from boardside.fixtures_render.sets import LOW_ELEVATION_DEG

    rng = np.random.default_rng(11)
    dev = Device.sample(rng, "webcam")
    centre = np.array([33.0, 33.0, 33.0])
    cam, pose = view_pose(dev, side, centre, 60.0, rng)
    look = cam.rotation.T @ np.array([0.0, 0.0, 1.0])
    elevation = math.degrees(math.asin(-look[2]))
    if side == "top":
        assert elevation > 70
    else:
        low = side.endswith(" low")
        lo, hi = (LOW_ELEVATION_DEG[0] - 6, LOW_ELEVATION_DEG[1] + 6) if low else (20, 80)  # aim jitter tilts it
        assert lo <= elevation <= hi
        if low:
            assert LOW_ELEVATION_DEG[0] <= pose["elevation_deg"] <= LOW_ELEVATION_DEG[1]
        axis = {"+x": (1, 0), "-x": (-1, 0), "+y": (0, 1), "-y": (0, -1)}[side.split()[0]]
        horiz = -look[:2] / np.linalg.norm(look[:2])  # from the battlefield toward the camera
        assert np.dot(horiz, axis) > math.cos(math.radians(12 if low else 25))
    u, v = cam.project([centre])[0]
    assert 0 < u < 1280 and 0 < v < 720
    assert pose["distance_mm"] > 100


def test_ctrl_pieces_follow_the_state_document() -> None:
    state = {
        "game": "ctrl",
        "blocks": [{"cell": [1, -1, 0], "color": "blue"}, {"cell": [3, 1, 0], "color": "pink"}],
        "flags": [{"color": "pink", "cell": [4, 1, 0], "points": "+x"}],
    }
    rng = np.random.default_rng(0)
    spec = SceneSpec()
    add_ctrl_pieces(spec, state, PieceLook.sample(rng), 22.0, rng)
    blocks = [p for p in spec.parts if p.label.get("kind") == "block"]
    assert [p.label["cell"] for p in blocks] == [[1, -1, 0], [3, 1, 0]]
    blue = blocks[0].mesh
    assert blue is not None
    lo, hi = blue.vertices.min(axis=0), blue.vertices.max(axis=0)
    assert np.allclose((lo + hi) / 2, [33.0, -11.0, 11.0], atol=0.5)
    assert lo[2] >= -1e-4  # resting on the table, not in it
    pole = next(p for p in spec.parts if p.name == "flag_pink_pole")
    assert pole.cylinder is not None
    p0, p1, _r = pole.cylinder
    assert p1[0] > p0[0] and 88.0 <= p1[0] <= 110.0  # out of the +x face of (3,1,0), inside cell (4,1,0)
    with pytest.raises(ValueError, match="duplicate"):
        spec.add(Part("cube", blocks[0].material))


def test_visible_faces_counts_pixels_per_block_face() -> None:
    rng = np.random.default_rng(0)
    spec = SceneSpec()
    add_ctrl_pieces(
        spec, {"blocks": [{"cell": [3, 0, 0], "color": "green"}], "flags": []}, PieceLook.sample(rng), 22.0, rng
    )
    block = next(i for i, p in enumerate(spec.parts) if p.label.get("kind") == "block")
    parts = np.full((4, 5), -1, np.int32)
    normals = np.zeros((4, 5, 3), np.float32)
    parts[:2, :3] = block
    normals[:2, :3] = (0.0, 0.0, 1.0)
    parts[2:, :2] = block
    normals[2:, :2] = (0.97, 0.2, 0.0)
    out = visible_faces(parts, normals, spec)
    assert out["block_faces"] == [[3, 0, 0, "+x", 4], [3, 0, 0, "+z", 6]]


def test_sets_meet_the_issue_sizes() -> None:
    assert SETS["ctrl"].count >= 40
    assert SETS["calib_webcam"].count >= 15 and SETS["calib_phone"].count >= 15
