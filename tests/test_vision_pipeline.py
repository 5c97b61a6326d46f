"""Camera scoring pipeline: unusable pictures are rejected with the reason (issue 5, item 3)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.cli import main
from boardside.fixtures_render.camera import truth_calibration


def test_unreadable_and_mat_less_pictures_are_rejected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    assert main(["ctrl", "score-images", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "notes.jpg" in err and len(err.strip().splitlines()) == 1
    rng = np.random.default_rng(0)
    table = (rng.normal(120, 25, (720, 1280, 3))).clip(0, 255).astype(np.uint8)  # a textured table, no mat
    p = tmp_path / "table.jpg"
    cv2.imwrite(str(p), table)
    assert main(["ctrl", "score-images", str(p)]) == 2
    assert "table.jpg" in capsys.readouterr().err


@pytest.mark.parametrize("kind,needle", [("dark", "too dark"), ("white", "over-exposed"), ("blur", "blurred")])
def test_bad_exposure_and_blur(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, needle: str) -> None:
    if kind == "dark":
        img = np.full((720, 1280, 3), 8, np.uint8)
    elif kind == "white":
        img = np.full((720, 1280, 3), 255, np.uint8)
    else:
        img = np.zeros((720, 1280, 3), np.uint8)
        img[:, 640:] = 200
        img = cv2.GaussianBlur(img, (0, 0), 25)
    p = tmp_path / f"{kind}.jpg"
    cv2.imwrite(str(p), img)
    assert main(["ctrl", "score-images", str(p)]) == 2
    assert needle in capsys.readouterr().err


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def test_score_images_on_a_rendered_set_up(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A recorded (rendered) set-up: every side's score must match the truth, and the result passes
    the rule checks; the annotated pictures and the 3D preview are written."""
    import json

    scene = FIXTURES / "scene_005"
    truth = json.loads((scene / "scene.json").read_text())
    args = ["ctrl", "score-images", *[str(scene / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")],
            "--json", "--annotate", str(tmp_path)]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = truth["scores"] if isinstance(truth["scores"], dict) else None
    from engine.ctrl import State

    st = State.from_json(truth["state"])
    assert doc["sides"] == st.side_scores()
    assert doc["trusted"] is True
    if expected is not None:
        assert doc["totals"] == expected["totals"]
    assert (tmp_path / "preview.png").exists() and len(list(tmp_path.glob("*_annotated.jpg"))) == 5


def test_hidden_cells_forced_by_block_counts_are_filled_and_reported() -> None:
    from vision.pipeline import _infer_hidden_by_counts

    # pink has 6 visible blocks (1 + 3k needs 7); one hidden cell touches pink: it must be pink
    blocks = {(3, 1, 0): "pink", (4, 1, 0): "pink", (5, 1, 0): "pink", (4, 1, 1): "pink", (5, 1, 1): "pink",
              (6, 1, 1): "pink", (1, -1, 0): "blue"}
    unobserved = [(3, 1, 1), (9, 9, 0)]
    probs = _infer_hidden_by_counts(blocks, unobserved)
    assert blocks[(3, 1, 1)] == "pink" and unobserved == [(9, 9, 0)]
    assert [p.code for p in probs] == ["inferred-count"] and "blocks come in threes" in probs[0].message
    # two hidden candidates for one missing block: nothing is guessed
    blocks2 = {k: v for k, v in blocks.items() if k != (3, 1, 1)}
    unobserved2 = [(3, 1, 1), (6, 1, 2)]
    assert _infer_hidden_by_counts(blocks2, unobserved2) == []
    assert unobserved2 == [(3, 1, 1), (6, 1, 2)] and (3, 1, 1) not in blocks2


def test_check_setup_from_rendered_pictures(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    def run(scene: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        d = FIXTURES / scene
        code = main(["ctrl", "check-setup", *[str(d / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")],
                     "--json"])
        return code, json.loads(capsys.readouterr().out)

    code, doc = run("scene_005")  # a 4-player set-up
    assert code == 0 and doc["valid"] is True
    assert sorted(b["color"] for b in doc["state"]["blocks"]) == ["blue", "green", "pink", "yellow"]
    code, doc = run("scene_001")  # a mid-game is not a set-up
    assert code == 1 and any(p["code"] == "setup-count" for p in doc["problems"])


def test_sides_that_hidden_cells_could_change_are_reported() -> None:
    """A finished pile read without a previous state: cells no picture shows are listed, and every
    side whose count such a cell could change is reported as uncertain, never printed as certain."""
    import json as _json

    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from engine.ctrl import State
    from vision.pipeline import score_images

    scene = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl" / "scene_004"
    doc = _json.loads((scene / "scene.json").read_text())
    cam = _json.loads((scene / "px.json").read_text())["camera"]
    calib = truth_calibration(cam)
    pics = [(v, read_image(scene / f"{v}.jpg")) for v in ("px", "mx", "py", "my", "top")]
    res = score_images(pics, MatSpec.from_json(doc["mat"]), calib)
    assert res.unobserved and res.uncertain_sides
    flagged = {side for p in res.problems if p.code == "side-uncertain"
               for side in p.where.removeprefix("sides ").removeprefix("side ").split(", ")}
    assert flagged == set(res.uncertain_sides)
    truth = State.from_json(doc["state"]).side_scores()
    got = res.state.side_scores()
    wrong = {side for side in truth if got[side] != truth[side]}
    # every wrong side is either flagged uncertain or the whole result is marked untrusted
    assert not res.trusted or wrong <= flagged


def test_missing_picture_and_folder_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ctrl", "score-images", str(tmp_path / "nope.jpg")]) == 2
    assert "image not found" in capsys.readouterr().err
    assert main(["ctrl", "score-images", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_reading_with_an_impossible_turn_order_is_not_trusted(capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """scene_035 is a set-up under a warm, hard light: highlights on the Central Cube's glossy faces
    are read as a dozen yellow blocks.  Each count is legal on its own, but players take turns, so
    13 yellow blocks beside 1 blue are not: the sheet is printed as NOT TRUSTED (exit 1).  (The
    opening step, ``vision.opening``, now reads a legal opening instead -- also not trusted, tested
    in tests/test_vision_opening.py -- and is switched off here.)"""
    import json as _json

    import vision.opening as opening_mod

    monkeypatch.setattr(opening_mod, "READ_OPENINGS", False)
    d = FIXTURES / "scene_035"
    code = main(["ctrl", "score-images", *[str(d / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")], "--json"])
    doc = _json.loads(capsys.readouterr().out)
    assert code == 1 and doc["trusted"] is False
    assert any(p["code"] == "implausible-turns" for p in doc["problems"])


def test_a_motion_blurred_mat_says_why_it_was_not_found() -> None:
    # a sideways motion blur of 15 px leaves no marker readable.  The variance of the Laplacian
    # used before session 7 passed it (the wood grain kept it above its floor) and the reading then
    # said "the mat was not found"; the edge measure rejects it as blurred before reading, and the
    # reading itself names the blur too
    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from vision.locate import ImageRejectedError, check_image, locate

    kernel = np.zeros((15, 15), np.float32)
    kernel[7, :] = 1.0 / 15
    blurred = cv2.filter2D(read_image(FIXTURES / "scene_001" / "top.jpg"), -1, kernel)
    with pytest.raises(ImageRejectedError, match=r"is blurred .*: hold still"):
        check_image(blurred, "top.jpg")
    with pytest.raises(ImageRejectedError, match=r"is blurred .*hold the camera still"):
        locate(blurred, "top.jpg", MatSpec(), None)


def test_image_check_figures_are_the_plain_means() -> None:
    """``check_image``'s clipped share and mean grey (integer counts divided once) are exactly
    ``(grey >= 250).mean()`` and ``grey.mean()`` (random grey pictures, some mostly white)."""
    import numpy as np

    from vision.locate import ImageRejectedError, check_image

    rng = np.random.default_rng(2)
    checked = 0
    for k in range(12):
        grey = rng.integers(0 if k % 2 else 200, 256, (73 + k, 101 + 3 * k)).astype(np.uint8)
        grey[: 20 + k, : 30] = np.clip(rng.normal(128, 60, (20 + k, 30)), 0, 255).astype(np.uint8)  # some texture
        try:
            got = check_image(grey, "x")
        except ImageRejectedError:
            continue  # rejected pictures are checked elsewhere; the figures are what is pinned here
        assert got["clipped"] == float((grey >= 250).mean())
        assert got["mean"] == float(grey.mean())
        checked += 1
    assert checked >= 10


def test_annotated_pictures_mark_the_reported_hidden_cells_and_flag_covered_faces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The red cells drawn are the cells the reading reports (the JSON's ``unobserved``), not the raw
    reconstruction's hidden cells far from every block (which had drawn red cubes on the table), and a
    face of the picture's side under a flag is crossed out and named in the legend."""
    import json

    import vision.annotate as annotate

    drawn: list[tuple[str, list[tuple[int, int, int]]]] = []
    legends: dict[str, list[str]] = {}
    real_view, real_legend = annotate.annotate_view, annotate.legend_lines

    def spy_view(image, camera, blocks, faces, side, unobserved, counts):  # type: ignore[no-untyped-def]
        drawn.append((side, list(unobserved)))
        return real_view(image, camera, blocks, faces, side, unobserved, counts)

    def spy_legend(side: str, n_unobserved: int, n_flag: int) -> list[tuple[str, tuple[int, int, int]]]:
        lines = real_legend(side, n_unobserved, n_flag)
        legends[side] = [t for t, _ in lines]
        return lines

    monkeypatch.setattr(annotate, "annotate_view", spy_view)
    monkeypatch.setattr(annotate, "legend_lines", spy_legend)
    scene = FIXTURES / "scene_003"
    main(["ctrl", "score-images", *[str(scene / f"{v}.jpg") for v in ("px", "mx", "py", "my", "top")],
          "--json", "--annotate", str(tmp_path)])
    doc = json.loads(capsys.readouterr().out)
    reported = sorted(tuple(u["cell"]) for u in doc["unobserved"])
    assert len(drawn) == 5 and all(sorted(cells) == reported for _, cells in drawn)
    assert all(f"red: {len(reported)} cell(s) no picture shows" in legends[side] for side, _ in drawn)
    # scene_003's +x picture shows a flag plugged into a +x face: crossed out, not counted
    assert any(line.startswith("crossed: 1 face(s) of side +x") for line in legends["+x"])
