"""Gridopolis accuracy round 4 (docs/boards_vision.md): what was fixed, on the committed fixtures
(rendered photographs, simulated) altered the way the development renders showed the failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec, gridopolis_pad_centre_mm
from calibration.camera import CameraCalibration
from vision.board_classify import _appearance, _gain_field, config_for
from vision.board_locate import locate_board
from vision.board_pads import PadDetectConfig, detect_pads
from vision.board_pipeline import read_board

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "gridopolis"


def _fixture(n: int) -> tuple[npt.NDArray[np.uint8], CameraCalibration, dict[str, Any]]:
    doc = json.loads((ROOT / f"scene_{n:03d}.json").read_text())
    img = np.asarray(cv2.imread(str(ROOT / f"scene_{n:03d}.jpg")), np.uint8)
    c = doc["camera"]
    cam = truth_calibration(c, "fixture truth (simulated camera)")
    return img, cam, doc


def test_white_balance_is_the_lit_prints_when_most_of_the_picture_is_black() -> None:
    """A constant white balance is fitted on the lit print, not on the unlit part of the picture
    (a development render had two thirds of its frame black: the gain fell 300-fold and black read as
    colours)."""
    img, cam, _ = _fixture(0)
    spec_pose = locate_board(img, _spec(0), cam)
    app = _appearance(spec_pose.spec, config_for("gridopolis").board_px_per_mm)
    full = _gain_field(img, spec_pose, app, constant=True).at(np.zeros((1, 2)))[0]
    dark = img.copy()
    h = img.shape[0]
    dark[: int(h * 0.7)] = 3  # the top 70 % of the picture black: 85 % of the print samples
    part = _gain_field(dark, spec_pose, app, constant=True).at(np.zeros((1, 2)))[0]
    assert np.all(np.abs(np.log(part / full)) < np.log(1.5)), (full, part)


def test_sites_seen_only_as_black_are_declined_not_read() -> None:
    """Where the picture is black nothing can be told: every site seen there only is read "unseen",
    none empty or a marker (before: they read empty with confidence, some as pawns of a colour seen
    in the noise)."""
    img, cam, _ = _fixture(0)
    pose = locate_board(img, _spec(0), cam)
    centres = np.array([gridopolis_pad_centre_mm(pose.spec, x, y, lv) for x, y, lv in
                        [(2, 2, 0), (4, 4, 0), (2, 4, 0), (4, 2, 0), (3, 3, 2)]])
    px = pose.project(centres)
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - 40
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 40
    dark = img.copy()
    dark[y0:y1, x0:x1] = 3
    res = read_board([("dark", dark)], "gridopolis", camera=cam, find_pads=False)
    inside = []
    for c in res.cells:
        cx, cy, top = gridopolis_pad_centre_mm(pose.spec, *c.key)
        box = np.array([[cx + dx, cy + dy, top + dz] for dx in (-16, 16) for dy in (-16, 16) for dz in (0, 26)])
        b = pose.project(box)
        if b[:, 0].min() > x0 + 3 and b[:, 0].max() < x1 - 3 and b[:, 1].min() > y0 + 3 and b[:, 1].max() < y1 - 3:
            inside.append(c)
    assert len(inside) >= 3
    assert all(c.kind == "unseen" for c in inside), inside


def _spec(n: int) -> BoardSpec:
    doc = json.loads((ROOT / f"scene_{n:03d}.json").read_text())
    return BoardSpec.from_json(doc["board"])


def test_a_pale_bluish_tint_on_empty_pads_is_mostly_not_a_blue_marker() -> None:
    """Shade under an upper level, lit by the cool room light, tints a pad bluish: a paler tint than
    any player's plastic (chroma / L* under ``MARKER_SATURATION``), so not a blue marker.  Here a
    bluish tint is painted on every empty pad of a fixture (30 mm squares, the pad's colour times
    0.9 / 0.7 / 0.6 in B / G / R): before this round 20 of its 28 pads read blue, now 8."""
    img, cam, _ = _fixture(0)
    pose = locate_board(img, _spec(0), cam)
    plain = read_board([("plain", img)], "gridopolis", camera=cam, find_pads=False)
    empty = [c.key for c in plain.cells if c.kind == "empty" and c.confidence > 0.9]
    tinted = img.copy()
    for key in empty:
        cx, cy, top = gridopolis_pad_centre_mm(pose.spec, *key)
        px = pose.project(np.array([[cx - 15, cy - 15, top], [cx + 15, cy - 15, top], [cx + 15, cy + 15, top],
                                    [cx - 15, cy + 15, top]]))
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(px).astype(np.int32), 1)
        tinted[mask > 0] = np.clip(tinted[mask > 0] * np.array([0.9, 0.7, 0.6]), 0, 255).astype(np.uint8)
    res = read_board([("tinted", tinted)], "gridopolis", camera=cam, find_pads=False)
    by_key = {c.key: c for c in res.cells}
    blue = [k for k in empty if by_key[k].colour == "blue"]
    assert len(empty) >= 20
    assert len(blue) <= len(empty) // 3, (len(blue), len(empty))
    # the blue markers of the fixture read in the plain picture still read blue
    was_blue = [c.key for c in plain.cells if c.colour == "blue" and c.kind in ("pawn", "king", "blocker")]
    assert was_blue and all(by_key[k].colour == "blue" for k in was_blue)


def test_a_soft_shadow_on_the_paper_is_no_pad_on_the_table() -> None:
    """A shadow on the guide's paper can darken it to a plain pad's grey, but has no pad's outline:
    since round 4 candidates on the table need their outline seen too.  The paper at the guide's
    four corner candidates is darkened by 15 % under a soft-edged shadow on three fixtures: the
    rule before (outline from level 1) takes 12 of the 12 for pads, now at most 2 are."""
    old_found = new_found = tried = 0
    for n in (2, 8, 11):
        img, cam, doc = _fixture(n)
        pose = locate_board(img, _spec(n), cam)
        truth = {tuple(p) for p in doc["state"]["pads"]}
        plain = detect_pads(img, pose)
        shaded = img.astype(np.float32)
        keys = [k for k in [(0, 0, 0), (6, 6, 0), (0, 6, 0), (6, 0, 0)] if k not in truth and k not in plain.pads]
        for k in keys:
            cx, cy, _ = gridopolis_pad_centre_mm(pose.spec, *k)
            m = np.zeros(img.shape[:2], np.float32)
            px = pose.project(np.array([[cx - 26, cy - 26, 0], [cx + 26, cy - 26, 0], [cx + 26, cy + 26, 0],
                                        [cx - 26, cy + 26, 0]]))
            cv2.fillConvexPoly(m, np.round(px).astype(np.int32), 1.0)
            shaded *= 1.0 - 0.15 * cv2.GaussianBlur(m, (0, 0), 6)[..., None]
        out = shaded.astype(np.uint8)
        tried += len(keys)
        new_found += len(set(keys) & set(detect_pads(out, pose).pads))
        old_found += len(set(keys) & set(detect_pads(out, pose, PadDetectConfig(edge_from_level=1)).pads))
    assert tried >= 10
    assert old_found >= tried // 2  # (the shadows do look like pads to the colours alone)
    assert new_found <= 2, (new_found, tried)
