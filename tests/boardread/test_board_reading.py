"""Reading the flat boards from the rendered photograph fixtures (fixtures/boards/, simulated) and
the bad inputs that must be rejected with the reason.

The camera intrinsics come from each fixture's truth, as for a user with a calibration file; the
pose is always measured from the picture."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from boardside.cli import main
from boardside.fixtures_render.camera import truth_calibration
from calibration.boards import BoardSpec
from calibration.camera import CameraCalibration
from engine.core import Problem
from engine.quirky import builtin_ids, builtin_scenario, parse_scenario
from vision.board_classify import CellReading
from vision.board_pipeline import BoardReading, read_board
from vision.board_reconstruct import ReconstructOptions, cells_of_problem, reconstruct_board
from vision.board_robot import robot_from_tag

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "boards"
QUIRKY_PIECES = {"dust": "dust_bunny", "vase": "vase", "seed": "seed", "fossil": "fossil", "flag": "quirky_flag"}


def _doc(game: str, n: int) -> dict[str, Any]:
    return json.loads((ROOT / game / f"scene_{n:03d}.json").read_text())  # type: ignore[no-any-return]


def _camera(doc: dict[str, Any]) -> CameraCalibration:
    c = doc["camera"]
    return truth_calibration(c, "fixture truth (simulated camera)")


def _options(game: str, doc: dict[str, Any]) -> ReconstructOptions:
    if game != "quirky":
        return ReconstructOptions()
    ref = doc["scenario"]
    scn = builtin_scenario(ref) if ref in builtin_ids() else parse_scenario((ROOT / ref).read_text("utf-8"), ref)
    return ReconstructOptions(scenario=scn)


@lru_cache(maxsize=64)
def _read(game: str, n: int) -> BoardReading:
    doc = _doc(game, n)
    img = cv2.imread(str(ROOT / game / f"scene_{n:03d}.jpg"))
    assert img is not None
    return read_board([(f"scene_{n:03d}", np.asarray(img, np.uint8))], game, spec=BoardSpec.from_json(doc["board"]),
                      camera=_camera(doc), options=_options(game, doc))


def _label(game: str, entries: list[dict[str, Any]]) -> str:
    kinds = {e["piece"]: e.get("colour") for e in entries}
    if game == "bandera":
        base = f"royal:{kinds['royal_tower']}" if "royal_tower" in kinds else \
            "tower2" if "tower2" in kinds else "cube" if "cube" in kinds else ""
        return base + (f"+char:{kinds['character']}" if "character" in kinds else "")
    if game == "gridopolis":
        k = next(k for k in ("king", "pawn", "blocker") if k in kinds)
        return f"{k}:{kinds[k]}"
    return "+".join(sorted(e["piece"] for e in entries))


def _read_label(game: str, c: CellReading) -> str:
    if game == "bandera":
        base = f"royal:{c.colour}" if c.kind == "royal_tower" else {1: "cube", 2: "tower2"}.get(c.cubes, c.kind)
        return base + (f"+char:{c.character_colour}" if c.character else "")
    if game == "gridopolis":
        return f"{c.kind}:{c.colour}"
    return "+".join(sorted(QUIRKY_PIECES.get(k, f"token:{k}") for k in c.kind.split("+")))


def _pieces_read(game: str, piece: str) -> tuple[int, int]:
    """(read right, seen) over every visible fixture cell holding ``piece``."""
    right = seen = 0
    for n in range(12):
        doc = _doc(game, n)
        res = _read(game, n)
        by_key = {(c.key if game == "gridopolis" else c.key[:2]): c for c in res.cells}
        for e in doc["cells"]:
            if e["piece"] != piece or not e["visible"]:
                continue
            key = (e["x"], e["y"], e["level"]) if game == "gridopolis" else (e["x"], e["y"])
            same = [x for x in doc["cells"] if (x["x"], x["y"], x.get("level", 0)) == (e["x"], e["y"], e["level"])]
            seen += 1  # (a piece on a pad added beyond the standard grid-set is not read: counted wrong)
            right += key in by_key and _read_label(game, by_key[key]) == _label(game, same)
    return right, seen


@pytest.mark.parametrize(("game", "piece"), [
    ("bandera", "cube"), ("bandera", "tower2"), ("bandera", "royal_tower"), ("bandera", "character"),
    ("quirky", "dust_bunny"), ("quirky", "vase"), ("quirky", "seed"), ("quirky", "fossil"), ("quirky", "quirky_flag"),
    ("quirky", "token:sock"), ("quirky", "token:ball"),
    ("gridopolis", "pawn"), ("gridopolis", "blocker"), ("gridopolis", "king"),
])
def test_every_piece_type_is_read_on_some_fixture(game: str, piece: str) -> None:
    right, seen = _pieces_read(game, piece)
    assert seen > 0, f"no visible {piece} in the {game} fixtures"
    assert right > 0, f"{piece}: none of the {seen} visible ones read right"


@pytest.mark.parametrize(("game", "piece", "least"), [
    ("bandera", "cube", 62), ("bandera", "tower2", 15), ("bandera", "royal_tower", 29), ("bandera", "character", 28),
    ("gridopolis", "pawn", 55), ("gridopolis", "blocker", 15),
])
def test_pieces_read_right_do_not_regress(game: str, piece: str, least: int) -> None:
    """A regression guard per piece kind at what the reader gets right now (bandera: 64 of 71 cubes,
    17 of 19 towers, 31 of 35 royal towers, 30 of 34 characters after session 7; 62, 17, 27, 26 after round 7;
    59, 17, 26 and 25 after
    accuracy round 5 -- 59, 13, 21
    and 20 after round 4, 53, 12, 20
    and 19 after round 3, 56, 12, 18 and 17 before it; gridopolis, with the pads found in the
    picture: 58 of 67 pawns, 17 of 32 blocker boxes since accuracy round 3, before 56 and 15)."""
    right, _ = _pieces_read(game, piece)
    assert right >= least


@pytest.mark.parametrize(("game", "floor"), [("bandera", 0.02), ("quirky", 0.012), ("gridopolis", 0.04)])
def test_cell_error_rate_does_not_regress(game: str, floor: float) -> None:
    """A regression guard at the error rates measured after the accuracy work (bandera 1.4 % since
    session 7, 2.3 % since round 7, 2.9 % since accuracy round 5, 3.9 % since round 4, 5.1 % before it, 5.8 % before
    accuracy round 3, quirky 0.8 % (1.25 % before round 4), gridopolis
    2.9 % with the pads found in the picture since accuracy round 3 (4.5 % before, 6.1 % reading the
    standard pads only); the issue's target, 0.1 %, is not met: benchmarks/board_vision.py reports
    the figures)."""
    wrong = total = 0
    for n in range(12):
        doc = _doc(game, n)
        truth: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        for e in doc["cells"]:
            truth.setdefault((e["x"], e["y"], e["level"]) if game == "gridopolis" else (e["x"], e["y"]), []).append(e)
        read = _read(game, n).cells
        keys = {c.key if game == "gridopolis" else c.key[:2] for c in read}
        unread = [k for k in truth if k not in keys]  # pieces on pads added beyond the standard set
        wrong += len(unread)
        total += len(unread)
        for c in read:
            key = c.key if game == "gridopolis" else c.key[:2]
            total += 1
            if c.kind in ("occluded", "unseen", "robot"):
                continue
            want = _label(game, truth[key]) if key in truth else "empty"
            got = "empty" if c.kind == "empty" else _read_label(game, c)
            wrong += got != want
    assert wrong / total <= floor


def test_broken_bandera_setup_is_reported_at_its_cell() -> None:
    """Scene 10: a cube on zone A (the two central squares, where no cube may be)."""
    res = _read("bandera", 10)
    recon = res.reconstruction
    zone_a = [(p, cells) for p, cells in zip(recon.problems, recon.problem_cells, strict=True) if p.code == "zone-a"]
    assert zone_a, [p.code for p in recon.problems]
    assert (4, 3) in zone_a[0][1]
    assert not recon.trusted


def test_quirky_robot_cell_and_heading_from_its_tag() -> None:
    visible = found = 0
    for n in range(12):
        doc = _doc("quirky", n)
        if not doc["robot"]["tag_visible"]:
            continue
        visible += 1
        tag = robot_from_tag(_read("quirky", n).images[0].pose)
        if tag is None:  # a tag seen very obliquely may be missed; a tag found must be right
            continue
        found += 1
        assert list(tag.cell or ()) == doc["robot"]["cell"]
        assert tag.heading.name == doc["robot"]["heading"]
    assert found >= visible - 1 and found >= 6


def test_quirky_state_names_the_robot_pose_and_tokens() -> None:
    """The state read carries the robot's pose from its tag, and every token whose cell was read
    with its kind is placed there under the scenario's id."""
    checked = 0
    for n in (0, 1, 3):
        doc = _doc("quirky", n)
        res = _read("quirky", n)
        recon = res.reconstruction
        assert recon.doc["robot"] == doc["state"]["robot"]
        kinds_at = {c.key[:2]: set(c.kind.split("+")) for c in res.cells}
        read_at = {t["id"]: t["at"] for t in recon.doc["tokens"]}
        for t in doc["state"]["tokens"]:
            if t.get("at") is None or t.get("fixed") or t["kind"] not in kinds_at.get(tuple(t["at"]), set()):
                continue
            same_kind = [u for u in doc["state"]["tokens"] if u["kind"] == t["kind"]]
            if len(same_kind) == 1:
                assert read_at[t["id"]] == t["at"], t["id"]
            else:  # interchangeable tokens: one of them is placed there
                assert t["at"] in [read_at[u["id"]] for u in same_kind]
            checked += 1
    assert checked >= 5


# ---------------------------------------------------------------------------------------- the CLI
def _calib_file(tmp_path: Path, game: str, n: int) -> Path:
    p = tmp_path / f"cam_{game}_{n}.json"
    _camera(_doc(game, n)).save(p)
    return p


def test_cli_reads_pictures_writes_annotations_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img = ROOT / "bandera" / "scene_010.jpg"
    cam = _calib_file(tmp_path, "bandera", 10)
    code = main(["validate", "bandera", "--images", str(img), "--calibration", str(cam),
                 "--annotate", str(tmp_path / "checked"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == (0 if out["valid"] else 1)
    assert not out["valid"] and "zone-a" in {p["code"] for p in out["problems"]}
    assert out["state"]["game"] == "bandera" and out["cells"]
    assert all(set(c) >= {"site", "kind", "confidence"} for c in out["cells"])
    pic = cv2.imread(str(tmp_path / "checked" / "scene_010_checked.png"))
    assert pic is not None and pic.shape[1] == 1280 and pic.shape[0] > 720  # the problem list below


def test_cli_quirky_needs_its_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "quirky", "--images", str(ROOT / "quirky" / "scene_000.jpg")]) == 2
    assert "--scenario" in capsys.readouterr().err


def test_cli_state_file_still_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _doc("bandera", 0)["state"]
    p = tmp_path / "state.json"
    p.write_text(json.dumps(doc))
    assert main(["validate", "bandera", str(p)]) == 0
    assert "OK" in capsys.readouterr().out


def _bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, image: np.ndarray[Any, Any],
               *extra: str) -> str:
    p = tmp_path / "pic.png"
    cv2.imwrite(str(p), image)
    assert main(["validate", game, "--images", str(p), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_too_dark_is_rejected_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img = cv2.imread(str(ROOT / "bandera" / "scene_003.jpg"))
    dark = np.clip(img.astype(np.float32) * 0.08, 0, 255).astype(np.uint8)
    assert "too dark" in _bad_input(tmp_path, capsys, "bandera", dark)


def test_blurred_is_rejected_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img = cv2.imread(str(ROOT / "quirky" / "scene_003.jpg"))
    blurred = cv2.GaussianBlur(img, (0, 0), 8.0)
    assert "blurred" in _bad_input(tmp_path, capsys, "quirky", blurred, "--scenario", "fetch")


def test_wrong_game_board_is_rejected_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img = cv2.imread(str(ROOT / "gridopolis" / "scene_003.jpg"))
    err = _bad_input(tmp_path, capsys, "bandera", img)
    assert "shows a gridopolis board" in err and "not the bandera board" in err


def test_ctrl_mat_instead_of_a_board_is_rejected_with_the_reason(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # a rendered CTRL view: a table and a play mat with markers of another dictionary, no board; said so
    # (no board at all in the picture: tests/boardread/test_board_locate_synthetic.py)
    views = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "ctrl").glob("scene_*/top.jpg"))
    assert views
    img = cv2.imread(str(views[0]))
    err = _bad_input(tmp_path, capsys, "gridopolis", img)
    assert "shows the CTRL play mat" in err and "not the gridopolis board" in err


# ---------------------------------------------------------------------------------------- reconstruct
def _cell(key: tuple[int, ...], kind: str, cubes: int = 0, colour: str | None = None,
          char: str | None = None) -> CellReading:
    return CellReading(key, kind, colour, cubes, char is not None, 0.9, char)


def test_bandera_setup_read_as_right() -> None:
    from calibration.boards import board_spec

    cells = [_cell((0, 3), "royal_tower", 2, "blue", "blue"), _cell((9, 3), "royal_tower", 2, "red", "red")]
    rec = reconstruct_board("bandera", board_spec("bandera"), cells)
    assert rec.doc["phase"] == "start" and rec.doc["players"] == ["blue", "red"]
    assert [p for p in rec.problems if p.severity == "error"] == []


def test_bandera_problem_cells_and_reader_warnings() -> None:
    from calibration.boards import board_spec

    cells = [_cell((0, 3), "royal_tower", 2, "blue", "blue"), _cell((9, 3), "royal_tower", 2, "red", "red"),
             _cell((4, 3), "cube", 1), _cell((6, 6), "occluded")]
    rec = reconstruct_board("bandera", board_spec("bandera"), cells, ReconstructOptions(setup=True))
    codes = {p.code for p in rec.problems}
    assert {"zone-a", "setup-extra-cube", "cell-covered"} <= codes
    covered = rec.problems.index(next(p for p in rec.problems if p.code == "cell-covered"))
    assert rec.problem_cells[covered] == [(6, 6)]


def test_cells_of_problem_parses_the_validators_places() -> None:
    assert cells_of_problem(Problem("x", "m", "cubes at (4,3)")) == [(4, 3)]
    assert cells_of_problem(Problem("x", "robot at [2, 1] stands on an obstacle", "robot")) == [(2, 1)]
    assert cells_of_problem(Problem("x", "m", "green pawn at 3,1,0")) == [(3, 1)]
    assert cells_of_problem(Problem("x", "m", "blue's flag")) == []


def test_quirky_tokens_are_matched_to_the_scenario() -> None:
    from calibration.boards import board_spec

    scn = builtin_scenario("dust-bunnies")
    cells = [_cell((0, 3), "dust"), _cell((4, 2), "dust"), _cell((1, 1), "dust+vase")]
    rec = reconstruct_board("quirky", board_spec("quirky", scenario="dust-bunnies"), cells,
                            ReconstructOptions(scenario=scn))
    at = {t["id"]: t["at"] for t in rec.doc["tokens"]}
    assert at["bunny1"] == [0, 3] and at["bunny3"] == [4, 2] and at["bunny2"] == [1, 1]
    assert any(p.code == "extra-token" for p in rec.problems)  # there is no vase in this scenario
    assert any(p.code == "robot-not-read" for p in rec.problems)


def test_several_pictures_fill_in_what_one_does_not_show() -> None:
    """A picture with a (painted: synthetic) skin-coloured blob over part of the board reads those
    cells as covered; together with an unobstructed picture of the same board those cells are read
    as in the unobstructed one."""
    doc = _doc("bandera", 3)
    img = np.asarray(cv2.imread(str(ROOT / "bandera" / "scene_003.jpg")), np.uint8)
    covered = img.copy()
    # skin under this picture's light: the brightest (paper) colour times a skin reflectance (B, G, R)
    paper = np.percentile(img.reshape(-1, 3), 95, axis=0)
    skin = tuple(float(v) for v in paper * np.array([0.38, 0.52, 0.78]))
    cv2.ellipse(covered, (640, 420), (200, 90), 20, 0, 360, skin, -1)
    spec, cam = BoardSpec.from_json(doc["board"]), _camera(doc)
    alone = read_board([("covered", covered)], "bandera", spec=spec, camera=cam)
    assert any(c.kind == "occluded" for c in alone.cells)
    both = read_board([("covered", covered), ("clear", img)], "bandera", spec=spec, camera=cam)
    clear = _read("bandera", 3)
    hidden = {c.key for c in alone.cells if c.kind == "occluded"}
    clear_at = {c.key: (c.kind, c.cubes) for c in clear.cells}
    for c in both.cells:
        if c.key in hidden:  # filled in from the unobstructed picture
            assert (c.kind, c.cubes) == clear_at[c.key], c.key


def test_quirky_robot_cell_warns_that_a_token_under_it_is_unseen() -> None:
    """Session 15: the robot's own cell is read ``robot`` (its body hides any token under it; tokens may lie
    on the robot's space, docs/rules/quirky.md section 1, "Tokens para compartir espacios"): a warning names the
    cell, no error."""
    from calibration.boards import board_spec

    scn = builtin_scenario("dust-bunnies")
    cells = [_cell((0, 3), "dust"), _cell((4, 2), "dust"), _cell((1, 1), "dust"), _cell((2, 2), "robot")]
    rec = reconstruct_board("quirky", board_spec("quirky", scenario="dust-bunnies"), cells,
                            ReconstructOptions(scenario=scn))
    under = [p for p in rec.problems if p.code == "cell-under-robot"]
    assert len(under) == 1 and under[0].severity == "warning" and cells_of_problem(under[0]) == [(2, 2)]
    assert rec.trusted
