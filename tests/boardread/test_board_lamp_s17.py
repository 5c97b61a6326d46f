"""Session 17: the Gridopolis lamp (:mod:`vision.board_lamp`) fitted to pad tops whose light a known lamp sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.board_lamp import GridLamp, fit_grid_lamp, lit_share, shadow_raster, shadowed


def _grid_set() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A small grid set: a 4 x 4 level of 40 mm pads (50 mm pitch) on the table, a level of 3 x 3 pads 50 mm above
    it shifted half a pitch (as Gridopolis levels stand), and a third of 2 x 2 another 50 mm up.  Returns the boxes
    (M, 6), the points on the pad tops of the two lower levels (N, 3) and the pad each lies on (N,)."""
    boxes = []
    for lv, n in ((0, 4), (1, 3), (2, 2)):
        for i in range(n):
            for j in range(n):
                z0 = 50.0 * lv
                boxes.append((0.0, 25.0 * lv + 50.0 * i, 25.0 * lv + 50.0 * j, 20.0, z0, z0 + 6.0))
    bx = np.asarray(boxes, np.float64)
    g = np.arange(-16.0, 16.5, 4.0)
    gx, gy = np.meshgrid(g, g)
    pts, pad = [], []
    for k, b in enumerate(bx):
        if b[4] > 60:  # (the top level has nothing above it)
            continue
        pts.append(np.column_stack([b[1] + gx.ravel(), b[2] + gy.ravel(), np.full(gx.size, b[5] + 0.2)]))
        pad.append(np.full(gx.size, k))
    return bx, np.concatenate(pts), np.concatenate(pad)


def _lit_picture(direction: np.ndarray, fill: np.ndarray, seed: int = 0) -> tuple[np.ndarray, ...]:
    bx, pts, pad = _grid_set()
    rng = np.random.default_rng(seed)
    albedo = rng.uniform(0.2, 0.6, size=(len(bx), 3))
    lit = (~shadowed(pts, direction, bx)).astype(np.float64)
    rgb = albedo[pad] * (fill[None, :] + lit[:, None]) * rng.lognormal(0.0, 0.03, size=(len(pts), 3))
    return bx, pts, pad, rgb, lit


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.acos(float(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1.0, 1.0))))


@pytest.mark.parametrize(("az", "el"), [(30.0, 50.0), (200.0, 40.0), (300.0, 65.0)])
def test_the_lamp_is_found_from_the_shadows_on_the_pad_tops(az: float, el: float) -> None:
    """Pad tops lit by one lamp and a bluish fill: the fitted direction lies within 10 degrees of the lamp's, the
    fill's share within 30 % per channel (bluer than red, as set), and the predicted light follows the shadows."""
    a, e = math.radians(az), math.radians(el)
    d = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    fill = np.array([0.25, 0.3, 0.45])
    bx, pts, pad, rgb, lit = _lit_picture(d, fill)
    assert 0.05 < lit.mean() < 0.95  # (some pad tops are shaded: the test has something to find)
    lamp = fit_grid_lamp(pts, rgb, pad, bx)
    assert lamp is not None
    assert _angle(lamp.direction, d) < 10.0
    assert np.all(np.abs(lamp.fill / fill - 1.0) < 0.3)
    assert lamp.fill[2] > lamp.fill[0]
    # the pad tops as they would look fully lit: the shade divided out, each pad one colour again
    flat = rgb / lamp.factor(lit_share(pts, lamp, bx))
    spread_before = np.mean([np.std(np.log(rgb[pad == k, 1])) for k in np.unique(pad)])
    spread_after = np.mean([np.std(np.log(flat[pad == k, 1])) for k in np.unique(pad)])
    assert spread_after < 0.5 * spread_before


def test_no_lamp_is_fitted_to_evenly_lit_pad_tops() -> None:
    """Pad tops with no shadow on them (a soft-lit table): no lamp is claimed."""
    bx, pts, pad = _grid_set()
    rng = np.random.default_rng(1)
    rgb = rng.uniform(0.2, 0.6, size=(len(bx), 3))[pad] * rng.lognormal(0.0, 0.03, size=(len(pts), 3))
    assert fit_grid_lamp(pts, rgb, pad, bx) is None


def test_the_shadow_raster_agrees_with_the_rays() -> None:
    """The slope-space raster the fit uses says what the exact ray test says on (nearly) every point and
    direction."""
    bx, pts, _ = _grid_set()
    shade, dirs = shadow_raster(pts, bx)
    pick = np.random.default_rng(2).choice(len(dirs), 40, replace=False)
    agree = np.mean([np.mean(shade[:, k] == shadowed(pts, dirs[k], bx)) for k in pick])
    assert agree > 0.97


def test_a_fully_lit_point_keeps_its_colour() -> None:
    lamp = GridLamp(np.array([0.0, 0.0, 1.0]), np.array([0.5, 0.5, 1.0]), 0.5, 3)
    f = lamp.factor(np.array([1.0, 0.0]))
    assert np.allclose(f[0], 1.0)
    assert np.allclose(f[1], [1 / 3, 1 / 3, 0.5])


def test_the_lamp_fitted_in_the_reader_points_at_the_renders_hard_lamp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixture 3 (a small hard lamp beside a large soft one): the lamp the reader fits to the pad tops it found
    (``slit_lamp``) points within 10 degrees of the hard lamp as seen from the grid set (the truth's lights are read
    by the test only)."""
    from pathlib import Path

    import vision.board_classify as bc
    from tests.boardread.test_board_round5 import read_gridopolis

    fitted: list[tuple[GridLamp | None, np.ndarray, tuple[np.ndarray, ...]]] = []
    real = bc.fit_grid_lamp

    def spy(points: np.ndarray, rgb: np.ndarray, pad: np.ndarray, boxes: np.ndarray) -> GridLamp | None:
        lamp = real(points, rgb, pad, boxes)
        fitted.append((lamp, points.mean(axis=0), (points, rgb, pad, boxes)))
        return lamp

    monkeypatch.setattr(bc, "fit_grid_lamp", spy)
    monkeypatch.setattr(bc, "SLIT_LAMP", True)
    stem = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "gridopolis" / "scene_003"
    _, doc = read_gridopolis(stem, "fixture truth (simulated camera)")
    assert fitted and fitted[0][0] is not None
    lamp, centre, _ = fitted[0]
    assert lamp is not None
    hard = [li for li in doc["lighting"]["lights"] if li["size_mm"] < 30]
    assert len(hard) == 1
    toward = np.asarray(hard[0]["position_mm"], np.float64) - centre
    assert _angle(lamp.direction, toward) < 10.0



def test_a_green_box_in_a_lamps_shadow_is_read_from_its_pad_top_with_the_lamp() -> None:
    """``dev_s17_h13008`` (held13 scene 8, one hard lamp, cold light): the green box on (3, 4, 0), seen only through
    the slits of the level above, is read from its pad top once the pad top's points are compared as the fitted lamp
    would show them fully lit (``slit_lamp``); without the lamp it stays unseen.  Every other cell is read as
    without it."""
    from dataclasses import replace
    from pathlib import Path

    from tests.boardread.test_board_round5 import read_gridopolis, truth_pieces
    from vision.board_classify import config_for

    stem = Path(__file__).resolve().parent / "data" / "gridopolis_dev" / "dev_s17_h13008"
    base = config_for("gridopolis")
    off, doc = read_gridopolis(stem, "render truth (simulated camera)", replace(base, slit_lamp=False))
    on, _ = read_gridopolis(stem, "render truth (simulated camera)", replace(base, slit_lamp=True))
    assert truth_pieces(doc)[(3, 4, 0)] == ("blocker", "green")
    assert off[(3, 4, 0)].kind == "unseen"
    assert (on[(3, 4, 0)].kind, on[(3, 4, 0)].colour) == ("blocker", "green")
    assert {k: (r.kind, r.colour) for k, r in on.items() if k != (3, 4, 0)} == \
        {k: (r.kind, r.colour) for k, r in off.items() if k != (3, 4, 0)}


def test_the_causes_tools_classify_fields_survive_its_instrumenting() -> None:
    """``benchmarks/gridopolis_causes.py --classify`` replaces Gridopolis config fields; its instrumenting runs the
    classifier module's source again, which used to put the unpatched ``config_for`` back (session 17: the tool's
    ``--classify`` had no effect).  Run in a fresh interpreter: the instrumenting changes the module for good."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import gridopolis_causes as gc; "
            "gc._configure({}, {'slit_lamp': True}); gc._instrument(); "
            "print(gc.bc.config_for('gridopolis').slit_lamp, gc.bc.config_for('bandera').slit_lamp)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["True", "False"]
