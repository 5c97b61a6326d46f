"""A pale block on the mat that every picture backs is a block, not a tinted shadow
(``vision.free_rules.PALE_KEEP_SEEN_BY_ALL``, ``seen_by_every_picture``; docs/vision.md, "Session 19: free reading
where every block is seen").

SYNTHETIC label maps (``vision.synthetic.render_labels``, five pictures from 60 degrees) of a low battlefield -- the
start blocks of fixture scene_026 and a row of blue blocks on the mat -- whose last blue block's pixels are pale (a
dim, warm lamp makes a blue block on the mat pale: rendered held18 scene_016).  When every picture shows the block
there, the guard keeps it; when one picture shows bare mat where the block would stand (as a flat patch of colour
on the mat does, seen from another side), it goes as before."""

from __future__ import annotations

import numpy as np
import pytest

import vision.free_rules as free_rules
from engine.ctrl.geometry import Cell
from tests.test_vision_pale_mat import _truth
from vision.camera import ViewCamera
from vision.free_rules import drop_pale_mat_blocks, seen_by_every_picture
from vision.labels import COLOR_LABELS
from vision.reconstruct import RayScorer, ViewEvidence, reconstruct
from vision.synthetic import render_labels, standard_cameras

PHANTOM: Cell = (1, -3, 0)  # on the mat, two cells in front of the blue start block


def _read(hide_in: str | None) -> tuple[dict[Cell, str], RayScorer]:
    """The reading of the five pictures (the pale block in all; ``hide_in``: that side's picture shows bare mat
    there instead)."""
    truth = _truth()
    blocks: dict[Cell, str] = {c: col for col, c in truth.starts.items()}
    blocks.update({(1, -2, 0): "blue", PHANTOM: "blue"})
    k = np.array([[480.0, 0, 320], [0, 480.0, 180], [0, 0, 1]])
    cams: dict[str, ViewCamera] = standard_cameras(k, (640, 360), elevation_deg=60.0)
    views = []
    for side, cam in cams.items():
        without = render_labels({c: v for c, v in blocks.items() if c != PHANTOM}, {}, cam)
        lab = without if side == hide_in else render_labels(blocks, {}, cam)
        sat = np.where(np.isin(lab, [int(v) for v in COLOR_LABELS.values()]), 1.0, np.nan).astype(np.float32)
        sat[(lab != without) & ~np.isnan(sat)] = 0.3  # the pale block's own pixels
        views.append(ViewEvidence(cam, lab, side, saturation=sat))
    recon = reconstruct(views)
    assert recon.scorer is not None and recon.blocks.get(PHANTOM) == "blue"
    return dict(recon.blocks), recon.scorer


def test_a_pale_block_every_picture_backs_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks, scorer = _read(None)
    gains = scorer.gains_by_view(blocks, [PHANTOM])
    assert len(gains) == 5 and int(gains.min()) >= 6  # every picture explains more rays with it
    assert seen_by_every_picture(blocks, scorer, PHANTOM, 6)
    monkeypatch.setattr(free_rules, "PALE_KEEP_SEEN_BY_ALL", 6)
    before = dict(blocks)
    assert drop_pale_mat_blocks(blocks, scorer, _truth().starts) == ([], {})
    assert blocks == before
    # switched off (the default) the same block goes as a tinted shadow
    monkeypatch.setattr(free_rules, "PALE_KEEP_SEEN_BY_ALL", None)
    dropped, _ = drop_pale_mat_blocks(blocks, scorer, _truth().starts)
    assert [c for c, _, _ in dropped] == [PHANTOM]


@pytest.mark.parametrize("side", ["+x", "-y"])
def test_a_pale_block_one_picture_shows_absent_goes(monkeypatch: pytest.MonkeyPatch, side: str) -> None:
    blocks, scorer = _read(side)
    gains = scorer.gains_by_view(blocks, [PHANTOM])
    assert int(gains.min()) < 6
    assert not seen_by_every_picture(blocks, scorer, PHANTOM, 6)
    monkeypatch.setattr(free_rules, "PALE_KEEP_SEEN_BY_ALL", 6)
    dropped, _ = drop_pale_mat_blocks(blocks, scorer, _truth().starts)
    assert [c for c, _, _ in dropped] == [PHANTOM]


def test_no_pictures_is_not_every_picture() -> None:
    class _NoViews:
        def gains_by_view(self, blocks: object, cells: object) -> np.ndarray:
            return np.zeros(0, np.int64)

    assert not seen_by_every_picture({PHANTOM: "blue"}, _NoViews(), PHANTOM, 6)  # type: ignore[arg-type]


def test_switch_is_off_by_default() -> None:
    assert free_rules.PALE_KEEP_SEEN_BY_ALL is None
