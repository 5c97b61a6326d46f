"""Gridopolis, session 16 (docs/boards_vision.md, "Session 16: Gridopolis shade under the pads"): a site declined
below the next level is read from its own pad top when, where a pawn there would be seen, the top is darker and
shifted towards a player's colour against the rest of its seen top, and where only a box would be seen too (a box;
``slit_shade_shift``).  A development render (tests/boardread/data/gridopolis_dev/README.md) and the committed fixture
``gridopolis/scene_004`` (SIMULATED renders); each reading test also runs with the switch off and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5 import read_gridopolis, truth_pieces
from vision.board_classify import CellReading, ClassifyBoardConfig, config_for

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "gridopolis"
TRUTH = "render truth (simulated camera)"


def _read(path: Path, cfg: ClassifyBoardConfig | None = None) -> tuple[dict[tuple[int, ...], CellReading], dict]:
    return read_gridopolis(path, TRUTH, cfg)


def _nothing_against_the_truth(on: dict[tuple[int, ...], CellReading], off: dict[tuple[int, ...], CellReading],
                               doc: dict) -> None:
    truth = truth_pieces(doc)
    for k, r in on.items():
        if k in off and off[k].kind == "unseen" and r.kind not in ("unseen", "occluded"):
            assert truth.get(k, ("empty", None)) == (r.kind, r.colour), k


def test_a_box_below_the_next_level_is_read_from_its_pad_top() -> None:
    """dev_s16_h8008 (cold light): the green box on (3, 2, 1) shows 787 pixels through the slits of level 2 above it,
    too few of its probes to read it (declined with the switch off).  Where a pawn there would be seen, and where only
    a box would, its pad top is darker and greener than the rest of the top: a green box."""
    key = (3, 2, 1)
    on, doc = _read(DEV / "dev_s16_h8008")
    off, _ = _read(DEV / "dev_s16_h8008", replace(config_for("gridopolis"), slit_shade_shift=0.0))
    assert next((e["piece"], e["colour"]) for e in doc["cells"] if (e["x"], e["y"], e["level"]) == key) == \
        ("blocker", "green")
    assert off[key].kind == "unseen"
    assert (on[key].kind, on[key].colour) == ("blocker", "green")
    assert any("read from the pad top" in n for n in on[key].notes)
    _nothing_against_the_truth(on, off, doc)


def test_a_marker_is_read_so_only_with_slit_shade_markers() -> None:
    """fixture scene_004: the green pawn on (2, 2, 1) (362 pixels, below level 2) is darker and greener where it
    would be seen, and the band only a box would cover looks as the rest of the top: a green pawn with
    ``slit_shade_markers``; without it (the default: posts and unread neighbours leave that band plain too) unseen."""
    key = (2, 2, 1)
    cfg = config_for("gridopolis")
    on, doc = _read(FIXTURES / "scene_004", replace(cfg, slit_shade_markers=True))
    off, _ = _read(FIXTURES / "scene_004")
    assert off[key].kind == "unseen"
    assert (on[key].kind, on[key].colour) == ("pawn", "green")
    _nothing_against_the_truth(on, off, doc)
