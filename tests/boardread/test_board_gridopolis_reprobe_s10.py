"""Gridopolis, session 10 (docs/boards_vision.md, "Session 10: Gridopolis declines"): a site with at most one of its
probes usable -- a piece under an upper pad, seen only through the slit below it -- is probed again on a finer grid,
and read on the usable probes of that grid when they show a piece of a player's colour clearly.  Development renders
(tests/boardread/data/gridopolis_dev/README.md); each reading test also runs with the re-probing off and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_classify import CellReading, ClassifyBoardConfig, config_for
from vision.board_pipeline import read_board

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
TRUTH = "development render truth (simulated camera)"


def _read(name: str, cfg: ClassifyBoardConfig | None = None) -> tuple[dict[tuple[int, ...], CellReading], dict]:
    img, cam, doc, pose = scene_with_pose(DEV / name, TRUTH)
    res = read_board([("s", img)], "gridopolis", spec=pose.spec, camera=cam,
                     classify_config=cfg or config_for("gridopolis"))
    return {c.key: c for c in res.cells}, doc


def _truth(doc: dict, key: tuple[int, int, int]) -> tuple[str, str]:
    e = next(e for e in doc["cells"] if (e["x"], e["y"], e.get("level", 0)) == key)
    return e["piece"], e["colour"]


def test_a_box_under_an_upper_pad_is_read_through_the_slit() -> None:
    """dev_s10_h9004 (dim light, a hand): the blue box on (3, 5, 0) shows 163 pixels under the pad above it, but at
    most one of its 30 probes is usable: declined.  Probed again on the 6 x 6 grid, the usable probes show a blue
    box, told from a marker (``reprobe_grid`` 0: declined).  The red box on the pad (6, 3, 1) reads too."""
    key = (3, 5, 0)
    on, doc = _read("dev_s10_h9004")
    assert (on[key].kind, on[key].colour) == _truth(doc, key) == ("blocker", "blue")
    assert (on[(6, 3, 1)].kind, on[(6, 3, 1)].colour) == _truth(doc, (6, 3, 1)) == ("blocker", "red")
    off, _ = _read("dev_s10_h9004", replace(config_for("gridopolis"), reprobe_grid=0))
    assert off[key].kind == "unseen"


def test_a_start_row_marker_under_a_pad_is_read_through_the_slit() -> None:
    """dev_s10_ga8010 (cold light, a hand): the green pawn on its kingerizer (2, 0, 0) shows 36 pixels between the
    links and the pads above; no probe of its own is usable.  Re-probed, 12 usable probes show green and beat
    "empty" by 1.0; on a kingerizer no box may stand, so the shape needs no telling (``reprobe_grid`` 0: declined)."""
    key = (2, 0, 0)
    on, doc = _read("dev_s10_ga8010")
    assert (on[key].kind, on[key].colour) == _truth(doc, key) == ("pawn", "green")
    off, _ = _read("dev_s10_ga8010", replace(config_for("gridopolis"), reprobe_grid=0))
    assert off[key].kind == "unseen"


def test_a_site_seen_on_few_re_probes_stays_declined() -> None:
    """dev_s10_gb027 (warm light): the empty pad (4, 2, 0) under the next level has 8 usable probes of the finer grid,
    all showing blue: under ``reprobe_min`` (10) it stays declined; with 6 it would be a false
    blue box (session 16: unless ``saturation_under_unlit``, which declines it too: blue only in the warm light's
    correction)."""
    key = (4, 2, 0)
    on, doc = _read("dev_s10_gb027")
    assert not any((e["x"], e["y"], e.get("level", 0)) == key for e in doc["cells"])  # empty on the table
    assert on[key].kind == "unseen"
    loose, _ = _read("dev_s10_gb027", replace(config_for("gridopolis"), reprobe_min=6, saturation_under_unlit=False))
    assert loose[key].kind == "blocker"
    unlit, _ = _read("dev_s10_gb027", replace(config_for("gridopolis"), reprobe_min=6))
    assert unlit[key].kind == "unseen"
