"""Blocks one cell off (vision.free_rules.edge_moves / depth_alternatives, vision.fine_rays.outline_score; issue 5;
docs/vision.md, "Session 17: blocks one cell off").

The outline fit on a drawn picture (the placement whose outline the picture has scores higher), which moves
``depth_alternatives`` offers (one cell back along a picture's line of sight or one down, priced by the sampled
rays), and the rule's choices with stub prices (outline and fine-ray limits, one move per block and cell, start
cells and support)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import vision.fine_rays as fine_rays
import vision.free_rules as free_rules
from engine.ctrl import new_state
from engine.ctrl.geometry import Cell
from vision.camera import ViewCamera
from vision.fine_rays import face_ids_in, outline_score
from vision.free_rules import DepthAlternative, depth_alternatives, edge_moves
from vision.reconstruct import ViewEvidence

W, H = 640, 480


def _view(eye: tuple[float, float, float]) -> ViewEvidence:
    K = np.array([[700.0, 0, W / 2], [0, 700.0, H / 2], [0, 0, 1]])
    cam = ViewCamera.look_at(eye, (66.0, 22.0, 22.0), K, (W, H))
    return ViewEvidence(cam, np.zeros((H, W), np.uint8), "px")


def _picture(blocks: Mapping[Cell, str], view: ViewEvidence) -> np.ndarray:
    """``blocks`` drawn flat: each face its own grey (by its direction), the mat mid grey."""
    ids = face_ids_in(blocks, view, (0, 0, W, H))
    greys = np.array([200, 90, 150, 60, 240, 30], np.uint8)  # +x, -x, +y, -y, +z, -z faces
    img = np.where(ids >= 0, greys[np.maximum(ids, 0) % 6], 120).astype(np.uint8)
    return np.repeat(img[:, :, None], 3, axis=2)


def _pink(extra: Mapping[Cell, str]) -> dict[Cell, str]:
    setup = new_state(4)
    return {**setup.blocks, (3, 1, 0): "pink", **extra}


def test_outline_score_follows_the_drawn_outline() -> None:
    # the truth: pink at 3,1,0 and 4,1,0; the reading: the second one a level up, at 4,1,1 (one cell too high)
    view = _view((400.0, 120.0, 300.0))
    truth = _pink({(4, 1, 0): "pink"})
    read = _pink({(4, 1, 1): "pink"})
    img = _picture(truth, view)
    towards_truth, n_views, n_px = outline_score(read, (4, 1, 1), (4, 1, 0), [img], [view])
    assert towards_truth is not None and n_views == 1 and n_px > 20
    assert towards_truth > free_rules.EDGE_MOVE_MIN_OUTLINE
    # from the truth, the move up is against the picture's edges
    away, _, _ = outline_score(truth, (4, 1, 0), (4, 1, 1), [img], [view])
    assert away is not None and away < -free_rules.EDGE_MOVE_MIN_OUTLINE
    # a flat picture (no edges at all) tells nothing either way
    flat = np.full_like(img, 120)
    none_way, _, _ = outline_score(read, (4, 1, 1), (4, 1, 0), [flat], [view])
    assert none_way is not None and abs(none_way) < 1e-6


class _Sampled:
    """Sampled-ray move prices from a table ((from, to) -> gain; else -1000)."""

    def __init__(self, gains: Mapping[tuple[Cell, Cell], int]) -> None:
        self.gains = dict(gains)

    def in_volume(self, cell: Cell) -> bool:
        return abs(cell[0]) < 9 and abs(cell[1]) < 9 and 0 <= cell[2] < 9

    def set_base(self, blocks: Mapping[Cell, str]) -> int:
        return 0

    def move_gains(self, cell: Cell, targets: Sequence[Cell]) -> list[int]:
        return [self.gains.get((cell, t), -1000) for t in targets]


def test_depth_alternatives_back_and_down_only() -> None:
    # one camera on +x, high: "back" from it is -x, and -x one level down; and one level down
    cam = _view((400.0, 22.0, 300.0)).camera
    blocks = _pink({(4, 1, 0): "pink", (4, 1, 1): "pink", (5, 1, 0): "pink"})
    starts = new_state(4).starts
    gains = {((4, 1, 1), (4, 2, 1)): 5,  # sideways: not a step back
             ((5, 1, 0), (5, 1, 1)): 5,  # up: not a step back
             ((4, 1, 1), (3, 1, 1)): -4,  # back (-x): a candidate, 4 rays dearer
             ((4, 1, 1), (3, 1, 2)): -30}  # too dear (not a -x-and-down step either: up)
    got = depth_alternatives(blocks, _Sampled(gains), starts, [cam], set(), 10)  # type: ignore[arg-type]
    assert got == [DepthAlternative((4, 1, 1), (3, 1, 1), 4)]
    # the limit
    assert depth_alternatives(blocks, _Sampled(gains), starts, [cam], set(), 3) == []  # type: ignore[arg-type]
    # a start block never moves
    pink_start = starts["pink"]
    start_gains = {(pink_start, (pink_start[0] - 1, pink_start[1], pink_start[2])): 0}
    assert all(a.cell != pink_start for a in depth_alternatives(
        blocks, _Sampled(start_gains), starts, [cam], set(), 10))  # type: ignore[arg-type]


def _stub_rule(monkeypatch: pytest.MonkeyPatch, cands: list[DepthAlternative],
               outline: Mapping[tuple[Cell, Cell], float], fine: Mapping[tuple[Cell, Cell], int]) -> None:
    def fake_alternatives(*_a: Any, **_k: Any) -> list[DepthAlternative]:
        return cands

    def fake_outline(_blocks: Any, cell: Cell, target: Cell, *_a: Any) -> tuple[float | None, int, int]:
        return outline.get((cell, target)), 1, 100

    def fake_fine(_blocks: Any, alts: Sequence[DepthAlternative], *_a: Any,
                  **_k: Any) -> list[tuple[int, float, int, int]]:
        return [(fine[(a.cell, a.target)], 0.5, 100, 0) for a in alts]

    monkeypatch.setattr(free_rules, "depth_alternatives", fake_alternatives)
    monkeypatch.setattr(fine_rays, "outline_score", fake_outline)
    monkeypatch.setattr(fine_rays, "fine_move_gains", fake_fine)


def test_edge_moves_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _pink({(4, 1, 1): "pink", (4, 1, 0): "pink", (2, 3, 1): "pink", (3, 2, 0): "pink"})
    before = dict(blocks)
    starts = new_state(4).starts
    good = DepthAlternative((4, 1, 1), (5, 1, 0), 3)          # outline 0.9, fine rays hardly against: taken
    second = DepthAlternative((4, 1, 1), (5, 1, 1), 2)        # the same block, a weaker outline: not taken
    weak = DepthAlternative((2, 3, 1), (2, 3, 0), 1)          # outline under the limit
    against = DepthAlternative((3, 2, 0), (3, 2, 1), 0)       # outline fine, the fine rays against
    cands = [good, second, weak, against]
    outline = {(good.cell, good.target): 0.9, (second.cell, second.target): 0.6,
               (weak.cell, weak.target): free_rules.EDGE_MOVE_MIN_OUTLINE - 0.05,
               (against.cell, against.target): 1.5}
    fine = {(good.cell, good.target): -10, (second.cell, second.target): 0,
            (weak.cell, weak.target): 100, (against.cell, against.target): free_rules.EDGE_MOVE_FINE_FLOOR - 1}
    _stub_rule(monkeypatch, cands, outline, fine)
    args: tuple[Any, ...] = (_Sampled({}), starts, [], [], [_view((400.0, 22.0, 300.0))], set())
    # off: nothing moves
    monkeypatch.setattr(free_rules, "EDGE_MOVES", False)
    assert edge_moves(blocks, *args) == [] and blocks == before
    monkeypatch.setattr(free_rules, "EDGE_MOVES", True)
    moved = edge_moves(blocks, *args)
    assert [(m.cell, m.target) for m in moved] == [(good.cell, good.target)]
    assert (4, 1, 1) not in blocks and blocks[(5, 1, 0)] == "pink" and len(blocks) == len(before)


def test_edge_moves_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = new_state(4).starts
    blue_start = starts["blue"]
    blocks = _pink({(4, 1, 0): "pink", (5, 1, 0): "pink", (2, -1, 0): "pink", (1, -2, 0): "blue"})
    blocks.pop(blue_start)  # blue's start cell read empty (blue still in play)
    into_start = DepthAlternative((2, -1, 0), blue_start, 0)  # a pink block into blue's start cell: never
    strands = DepthAlternative((4, 1, 0), (4, 2, 0), 0)  # 5,1,0 and the moved block would touch nothing: never
    _stub_rule(monkeypatch, [into_start, strands], {(a.cell, a.target): 2.0 for a in (into_start, strands)},
               {(a.cell, a.target): 0 for a in (into_start, strands)})
    monkeypatch.setattr(free_rules, "EDGE_MOVES", True)
    before = dict(blocks)
    assert edge_moves(blocks, _Sampled({}), starts, [], [], [], set()) == []  # type: ignore[arg-type]
    assert blocks == before


def test_switch_is_off_by_default() -> None:
    # off until a check set shows its gain (docs/vision.md, "Session 17: blocks one cell off")
    assert free_rules.EDGE_MOVES is False


def test_edge_move_sides_name_each_move_by_its_own_change() -> None:
    """``edge_moves`` makes every move before it returns: the sides each one changes are found by replaying them in
    order (the first move must not be charged with the second's side)."""
    from vision.pipeline import _edge_move_sides

    before = {(2, 0, 0): "blue", (3, 0, 0): "pink", (0, 2, 0): "yellow", (0, 3, 0): "green"}
    uncover_x = free_rules.EdgeMove((3, 0, 0), (3, 1, 0), "pink", 2, 0.5, 0)  # blue's +x face shows
    uncover_y = free_rules.EdgeMove((0, 3, 0), (1, 3, 0), "green", 2, 0.5, 0)  # yellow's +y face shows
    assert _edge_move_sides(before, [uncover_x, uncover_y]) == {"+x": [uncover_x], "+y": [uncover_y]}
