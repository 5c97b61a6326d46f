"""The colour model: CIEDE2000, white balance, classes under simulated 2700 K - 6500 K light and
camera automatic white balance (spectral simulation, calibration.spectral)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from calib_sim import TABLE_CAM, View

from calibration.camera import CameraCalibration
from calibration.colour import (
    ColourModel,
    WhiteBalance,
    ciede2000,
    lab_to_linear,
    linear_to_lab,
    sample_cell_face,
    sample_patches,
    sample_world_polygon,
)
from calibration.errors import CalibrationFileError
from calibration.mat import MatSpec
from calibration.pose import estimate_pose
from calibration.spectral import camera_rgb, fit_reflectance, linear_to_srgb8, relight_image

SHARMA = [  # Sharma, Wu, Dalal (2005) test data
    ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
    ((50, 3.1571, -77.2803), (50, 0, -82.7485), 2.8615),
    ((50, 2.8361, -74.0200), (50, 0, -82.7485), 3.4412),
    ((50, -1.3802, -84.2814), (50, 0, -82.7485), 1.0000),
    ((50, 0, 0), (50, -1, 2), 2.3669),
    ((50, 2.5, 0), (73, 25, -18), 27.1492),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("a", "b", "want"), SHARMA)
def test_ciede2000_reference_values(a, b, want) -> None:
    assert float(ciede2000(a, b)) == pytest.approx(want, abs=1e-4)
    assert float(ciede2000(b, a)) == pytest.approx(want, abs=1e-4)


def test_lab_round_trip() -> None:
    rgb = np.random.default_rng(0).uniform(0, 1, (100, 3))
    assert np.allclose(lab_to_linear(linear_to_lab(rgb)), rgb, atol=1e-9)


# materials of a CTRL table (sRGB appearance under daylight): mat patches, blocks, the Central Cube
MATERIALS = {
    "white": (245, 245, 240),
    "grey": (119, 119, 119),
    "print": (25, 25, 25),
    "blue": (20, 90, 190),
    "pink": (230, 80, 150),
    "yellow": (250, 200, 20),
    "green": (30, 150, 70),
    "black": (52, 52, 56),
}
REFL = {k: fit_reflectance(v) for k, v in MATERIALS.items()}
CONDITIONS = [(t, awb) for t in (2700, 3500, 4500, 5500, 6500) for awb in (False, True)]


def _pixels(temperature: float, awb: bool, rng: np.random.Generator, n: int = 60) -> dict[str, np.ndarray]:
    """8-bit BGR pixels of every material as the simulated camera records them."""
    lin = {k: camera_rgb(r, temperature) for k, r in REFL.items()}
    if awb:  # grey-world over a scene that is mostly mat paper, some blocks and the table
        scene = np.mean(
            [lin["white"]] * 4 + [lin[k] for k in ("blue", "pink", "yellow", "green", "black")], axis=0
        )
        gains = scene.mean() / scene
        lin = {k: v * gains for k, v in lin.items()}
    expo = 0.92 / max(v.max() for v in lin.values())  # auto exposure
    out = {}
    for k, v in lin.items():
        enc = linear_to_srgb8(v * expo)[::-1]  # BGR
        out[k] = np.clip(enc + rng.normal(0, 1.5, (n, 3)) + 0.5, 0, 255).astype(np.uint8)
    return out


def _wb(px: dict[str, np.ndarray]) -> ColourModel:
    from calibration.colour import srgb8_to_linear

    meas = {k: np.median(srgb8_to_linear(px[k][:, ::-1]), axis=0) for k in ("white", "grey")}
    meas["black"] = np.median(srgb8_to_linear(px["print"][:, ::-1]), axis=0)
    return ColourModel().with_white_balance(WhiteBalance.from_patches(meas))


def _learn(temperature: float, awb: bool, seed: int) -> ColourModel:
    px = _pixels(temperature, awb, np.random.default_rng(seed))
    model = _wb(px)
    return model.learn({k: [px[k]] for k in MATERIALS if k != "grey"})


@pytest.mark.parametrize("learned_at", [(6500, False), (2700, True)])
@pytest.mark.parametrize(("temperature", "awb"), CONDITIONS)
def test_classes_hold_from_2700k_to_6500k(learned_at, temperature: float, awb: bool) -> None:
    model = _learn(*learned_at, seed=1)
    px = _pixels(temperature, awb, np.random.default_rng(2))
    balanced = _wb(px)
    balanced = ColourModel(balanced.white_balance, model.classes)
    for name in ("blue", "pink", "yellow", "green", "white"):
        labels = balanced.classify_bgr(px[name])
        assert np.mean(labels == name) >= 0.98, (
            name,
            dict(zip(*np.unique(labels, return_counts=True), strict=True)),
        )
    for name in ("black", "print"):
        assert balanced.classify_region(px[name])[0] == name


def test_without_white_balance_warm_light_breaks_classes() -> None:
    """The white balance is what makes the model robust: skip it and 2700 K light confuses classes."""
    model = _learn(6500, False, seed=1)
    px = _pixels(2700, False, np.random.default_rng(2))
    unbalanced = ColourModel(WhiteBalance(), model.classes)
    wrong = sum(np.mean(unbalanced.classify_bgr(px[n]) != n) for n in ("blue", "pink", "white", "green"))
    assert wrong > 1.0


def test_save_and_load(tmp_path) -> None:
    model = _learn(4500, True, seed=3)
    path = tmp_path / "colours.json"
    model.save(path)
    back = ColourModel.load(path)
    px = _pixels(3000, True, np.random.default_rng(4))
    assert back.white_balance == model.white_balance
    for name in ("blue", "yellow"):
        assert (back.classify_bgr(px[name]) == model.classify_bgr(px[name])).all()
    (tmp_path / "bad.json").write_text('{"kind": "boardside.colours", "classes": {"purple": {}}}')
    with pytest.raises(CalibrationFileError):
        ColourModel.load(tmp_path / "bad.json")
    with pytest.raises(CalibrationFileError):
        ColourModel.load(tmp_path / "none.json")


CALIB = CameraCalibration(TABLE_CAM.camera_matrix, TABLE_CAM.dist_coeffs, TABLE_CAM.size, 0.0)


def _paint_block_tops(
    img: np.ndarray, pose, blocks: dict[tuple[int, int, int], tuple[int, int, int]]
) -> np.ndarray:
    """Simulated block tops: the top face of each cell painted in the block's colour (BGR)."""
    out = img.copy()
    s = pose.spec.block_mm
    for (i, j, k), bgr in blocks.items():
        top = [
            [i * s, j * s, (k + 1) * s],
            [(i + 1) * s, j * s, (k + 1) * s],
            [(i + 1) * s, (j + 1) * s, (k + 1) * s],
            [i * s, (j + 1) * s, (k + 1) * s],
        ]
        cv2.fillConvexPoly(out, np.round(pose.project(top) * 16).astype(np.int32), bgr, cv2.LINE_AA, 4)
    return out


@pytest.mark.parametrize(("temperature", "awb"), [(2700, False), (2700, True), (6500, True)])
def test_end_to_end_on_a_relit_mat_view(
    mat_views: list[View], a3_mat: MatSpec, temperature: float, awb: bool
) -> None:
    """Rendered mat view + simulated blocks, relit (illuminant matrix of the spectral simulation)."""
    v = mat_views[0]
    pose = estimate_pose(v.image, a3_mat, CALIB)
    blocks = {
        (3, 1, 0): (190, 90, 20),
        (-1, 1, 0): (150, 80, 230),
        (1, 3, 0): (20, 200, 250),
        (1, -1, 0): (70, 150, 30),
    }
    names = {(3, 1, 0): "blue", (-1, 1, 0): "pink", (1, 3, 0): "yellow", (1, -1, 0): "green"}
    scene = relight_image(
        _paint_block_tops(v.image, pose, blocks),
        temperature,
        auto_white_balance=awb,
        rng=np.random.default_rng(5),
        noise_sigma=1.5,
    )
    pose2 = estimate_pose(scene, a3_mat, CALIB)
    assert set(sample_patches(scene, pose2)) >= {"white", "grey", "black", "blue", "pink", "yellow", "green"}
    model = ColourModel().learn_from_mat(scene, pose2)
    # the printed colour patches classify as their colours with the prior, after white balance
    for p in a3_mat.patches():
        if p.kind in ("blue", "pink", "yellow", "green"):
            x0, y0, x1, y1 = p.rect_world
            px = sample_world_polygon(scene, pose2, [[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], 0.3)
            assert model.classify_region(px)[0] == p.kind, p.kind
    # learn the start blocks from their known places, then classify them (and the paper) per pixel
    learned = model.learn({n: [sample_cell_face(scene, pose2, c)] for c, n in names.items()})
    for cell, name in names.items():
        labels = learned.classify_bgr(sample_cell_face(scene, pose2, cell))
        assert np.mean(labels == name) > 0.95
    paper = sample_cell_face(scene, pose2, (1, 1, -1))  # the footprint's centre cell on the paper
    assert np.mean(learned.classify_bgr(paper) == "white") > 0.9
