"""calibration.boards: board specifications, marker ids, rendering (issue #9, docs/boards.md)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.boards import (
    DICTIONARY,
    MARKER_IDS,
    ROBOT_TAG_IDS,
    BoardSpec,
    BoardSpecError,
    RobotTag,
    board_spec,
    game_of_marker_id,
    gridopolis_pad_centre_mm,
    gridopolis_pad_top_mm,
    gridopolis_pads,
    render_board,
    render_robot_tag,
)
from engine.errors import BoardsideError
from engine.quirky.scenario import builtin_ids, builtin_text

SPECS = [
    ("bandera", None, None),
    ("gridopolis", None, None),
    *[("quirky", sid, None) for sid in builtin_ids()],
    ("quirky", "ballroom", 150.0),
    ("quirky", "kitchen-crumbs", 150.0),
]


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _box(corners: tuple[tuple[float, float], ...], pad: float = 0.0) -> tuple[float, float, float, float]:
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)


@pytest.mark.parametrize(("game", "scenario", "cell"), SPECS)
def test_markers_are_the_games_own_and_do_not_overlap(game: str, scenario: str | None, cell: float | None) -> None:
    spec = board_spec(game, scenario=scenario, cell_mm=cell)
    assert spec.game == game and spec.dictionary == DICTIONARY
    ids = spec.marker_ids
    assert len(set(ids)) == len(ids)
    assert all(game_of_marker_id(i) == game for i in ids)
    xmin, ymin, xmax, ymax = spec.extent_mm
    gw, gh = spec.grid_mm
    boxes = [_box(f.corners_mm, f.side_mm / 6) for f in spec.fiducials]  # with the white quiet zone
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not _overlap(a, b), (ids[i], ids[j])
    for f, bx in zip(spec.fiducials, boxes, strict=True):
        assert xmin <= bx[0] and bx[2] <= xmax and ymin <= bx[1] and bx[3] <= ymax
        (x0, y1), (x1, _), (_, y0) = f.corners_mm[0], f.corners_mm[1], f.corners_mm[2]
        assert x1 > x0 and y1 > y0, "printed top-left must be north-west"
    margin = [f for f in spec.fiducials if not (0 < f.centre_mm[0] < gw and 0 < f.centre_mm[1] < gh)]
    # four corners, and markers along every edge
    assert len(margin) >= 8
    centres = [f.centre_mm for f in margin]
    assert sum(1 for c in centres if c[1] < 0) >= 3 and sum(1 for c in centres if c[1] > gh) >= 3
    assert sum(1 for c in centres if c[0] < 0) >= 3 and sum(1 for c in centres if c[0] > gw) >= 3


def test_marker_id_ranges_are_disjoint_and_fit_the_dictionary() -> None:
    size = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250).bytesList.shape[0]
    everything = [i for r in MARKER_IDS.values() for i in r] + list(ROBOT_TAG_IDS)
    assert len(everything) == len(set(everything))
    assert max(everything) < size
    assert game_of_marker_id(ROBOT_TAG_IDS[0]) == "robot"
    assert game_of_marker_id(250) is None and game_of_marker_id(-1) is None
    assert game_of_marker_id(0) == "bandera" and game_of_marker_id(30) == "gridopolis"


def test_bandera_board_has_its_zones() -> None:
    spec = board_spec("bandera")
    assert (spec.cols, spec.rows, spec.name) == (10, 7, "bandera 10x7")
    zones = {(m.x, m.y): m.text for m in spec.marks if m.kind == "zone"}
    assert zones[(4, 3)] == zones[(5, 3)] == "A"
    assert all(zones[(x, y)] == "B" for x in (0, 1) for y in range(7))
    assert all(zones[(x, y)] == "C" for x in (8, 9) for y in range(7))
    paved = {(m.x, m.y) for m in spec.marks if m.kind == "paved"}
    assert paved == {(x, y) for x in (0, 9) for y in range(7)}


def test_quirky_board_follows_its_scenario() -> None:
    spec = board_spec("quirky", scenario="kitchen-crumbs")
    assert (spec.cols, spec.rows, spec.cell_mm, spec.name) == (7, 6, 50.0, "quirky:kitchen-crumbs")
    kinds = {m.kind for m in spec.marks}
    assert {"obstacle", "spin", "start", "wall"} <= kinds
    spins = {(m.x, m.y): m.text for m in spec.marks if m.kind == "spin"}
    assert spins == {(1, 4): "L", (5, 3): "R"}
    fetch = board_spec("quirky", scenario="fetch")
    assert [(m.x, m.y, m.text) for m in fetch.marks if m.kind == "item"] == [(0, 3, "basket")]


def test_quirky_board_from_a_scenario_file(tmp_path: Path) -> None:
    f = tmp_path / "mine.toml"
    f.write_text(builtin_text("tea-party").replace('id = "tea-party"', 'id = "my-tea"'))
    spec = board_spec("quirky", scenario=str(f), cell_mm=80)
    assert spec.name == "quirky:my-tea" and spec.cell_mm == 80.0


def test_floor_boards_carry_markers_inside_the_grid() -> None:
    spec = board_spec("quirky", scenario="ballroom", cell_mm=150)
    gw, gh = spec.grid_mm
    inner = [f for f in spec.fiducials if 0 < f.centre_mm[0] < gw and 0 < f.centre_mm[1] < gh]
    assert inner, "a 1050 mm board needs markers inside the grid"
    for f in inner:  # on grid intersections, leaving the cell centres free
        cx, cy = f.centre_mm
        assert cx % spec.cell_mm == pytest.approx(0) and cy % spec.cell_mm == pytest.approx(0)
        assert f.side_mm <= 0.3 * spec.cell_mm + 1e-9
    table = board_spec("quirky", scenario="dust-bunnies")
    assert all(not (0 < f.centre_mm[0] < 250 and 0 < f.centre_mm[1] < 250) for f in table.fiducials)


def test_cells_and_json_round_trip() -> None:
    spec = board_spec("bandera")
    for x, y in [(0, 0), (9, 6), (4, 3)]:
        assert spec.cell_of_mm(*spec.cell_centre_mm(x, y)) == (x, y)
    assert spec.cell_of_mm(-0.1, 5) is None and spec.cell_of_mm(5, spec.rows * spec.cell_mm) is None
    assert spec.cell_of_mm(float("nan"), 1.0) is None
    w, h = spec.size_mm
    assert w == pytest.approx(10 * spec.cell_mm + 2 * spec.margin_mm)
    assert h == pytest.approx(7 * spec.cell_mm + 2 * spec.margin_mm)
    for game, scenario, cell in SPECS[:3]:
        s = board_spec(game, scenario=scenario, cell_mm=cell)
        doc = json.loads(json.dumps(s.to_json()))
        back = BoardSpec.from_json(doc)
        assert back.to_json() == s.to_json()
        assert back.marker_ids == s.marker_ids and back.marks == s.marks


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([], "JSON object"),
        ({"game": "bandera"}, "malformed"),
        ({**board_spec("bandera").to_json(), "game": "chess"}, "'chess'"),
        ({**board_spec("bandera").to_json(), "dictionary": "DICT_9X9"}, "'DICT_9X9'"),
    ],
)
def test_from_json_rejects_bad_documents(doc: object, needle: str) -> None:
    with pytest.raises(BoardSpecError, match=needle):
        BoardSpec.from_json(doc)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game": "quirky"}, "needs a scenario"),
        ({"game": "quirky", "scenario": "no-such"}, "unknown scenario 'no-such'"),
        ({"game": "quirky", "scenario": "/nonexistent/x.toml"}, "cannot read scenario file"),
        ({"game": "quirky", "scenario": "fetch", "cell_mm": 10}, "between 30 and 300"),
        ({"game": "quirky", "scenario": "fetch", "cell_mm": float("inf")}, "number of millimetres"),
        ({"game": "bandera", "scenario": "fetch"}, "for quirky boards"),
        ({"game": "gridopolis", "cell_mm": 60}, "pad pitch"),
    ],
)
def test_bad_requests_raise_typed_errors(kwargs: dict[str, object], needle: str) -> None:
    game = str(kwargs.pop("game"))
    with pytest.raises(BoardSpecError, match=needle) as ei:
        board_spec(game, **kwargs)  # type: ignore[arg-type]
    assert isinstance(ei.value, BoardsideError) and isinstance(ei.value, ValueError)


def test_bad_scenario_file_reports_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('id = "x"\n[board\n')
    with pytest.raises(BoardSpecError, match="line"):
        board_spec("quirky", scenario=str(f))


@pytest.mark.parametrize(("game", "scenario", "cell"), [*SPECS[:3], ("quirky", "ballroom", 150.0)])
def test_rendered_board_markers_detected_at_their_positions(
    game: str, scenario: str | None, cell: float | None
) -> None:
    spec = board_spec(game, scenario=scenario, cell_mm=cell)
    bi = render_board(spec, px_per_mm=3.0 if cell else 4.0)
    w, h = spec.size_mm
    assert bi.image.shape[:2] == (round(h * bi.px_per_mm), round(w * bi.px_per_mm))
    det = cv2.aruco.ArucoDetector(spec.aruco_dictionary())
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(bi.image, cv2.COLOR_RGB2GRAY))
    assert ids is not None
    assert sorted(int(i) for i in ids.ravel()) == sorted(spec.marker_ids)
    for c, i in zip(corners, ids.ravel(), strict=True):
        expected = bi.mm_to_px(np.array(spec.fiducial(int(i)).corners_mm))
        assert np.abs(c.reshape(4, 2) - expected).max() < 1.0
    # pixel <-> mm maps are inverse
    pts = np.array([[0.0, 0.0], [12.5, -7.0], [100.0, 55.5]])
    assert np.allclose(bi.px_to_mm(bi.mm_to_px(pts)), pts)


def test_render_region_matches_whole_board() -> None:
    spec = board_spec("bandera")
    whole = render_board(spec, 2.0)
    part = render_board(
        spec, 2.0, region_mm=(-spec.margin_mm, 0.0, 100.0 - spec.margin_mm, spec.grid_mm[1] + spec.margin_mm)
    )
    r0 = round((spec.margin_mm) * 2.0)
    c1 = part.image.shape[1]
    diff = np.abs(whole.image[: part.image.shape[0], :c1].astype(int) - part.image.astype(int))
    assert diff.mean() < 2.0
    assert r0 > 0
    with pytest.raises(BoardSpecError, match="px_per_mm"):
        render_board(spec, 0.0)
    with pytest.raises(BoardSpecError, match="empty board region"):
        render_board(spec, 2.0, region_mm=(0, 0, 0, 10))


def test_gridopolis_pad_positions() -> None:
    spec = board_spec("gridopolis")
    assert (spec.cols, spec.rows) == (7, 7)
    x, y, z = gridopolis_pad_centre_mm(spec, 3, 3, 2)
    assert (x, y) == spec.cell_centre_mm(3, 3) and z == gridopolis_pad_top_mm(2)
    assert gridopolis_pad_top_mm(1) - gridopolis_pad_top_mm(0) > 0
    pads4, pads2 = gridopolis_pads(4), gridopolis_pads(2)
    assert len(pads4) == 51 and len(pads2) == 39
    level0 = {(m.x, m.y) for m in spec.marks if m.kind == "pad"}
    assert level0 == {(px, py) for px, py, lv in pads4 if lv == 0}
    with pytest.raises(BoardSpecError, match="level guide"):
        gridopolis_pad_centre_mm(board_spec("bandera"), 0, 0, 0)
    with pytest.raises(BoardSpecError, match="5"):
        gridopolis_pads(5)
    with pytest.raises(BoardSpecError):
        gridopolis_pad_top_mm(-1)


def test_robot_tag() -> None:
    tag = RobotTag()
    assert tag.id in ROBOT_TAG_IDS and tag.id not in board_spec("bandera").marker_ids
    img = render_robot_tag(tag, 8.0)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250))
    big = cv2.copyMakeBorder(img, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    _, ids, _ = det.detectMarkers(big)
    assert ids is not None and ids.ravel().tolist() == [tag.id]
    tl, tr, br, bl = tag.corners_local_mm()
    assert tl[0] > 0 and tr[0] > 0 and br[0] < 0 and bl[0] < 0  # top edge points the heading (+x)
    for bad in ({"id": 3}, {"tag_mm": 1.0}, {"height_mm": -2.0}):
        with pytest.raises(BoardSpecError):
            RobotTag(**bad)  # type: ignore[arg-type]
