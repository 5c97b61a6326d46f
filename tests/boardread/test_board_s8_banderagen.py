"""Session 8, Captura la Bandera and Quirky Circuits (docs/boards_vision.md, "Session 8: Bandera and Quirky readings
beyond the fixtures").  Rendered pictures (SIMULATED photographs: development renders committed in
tests/boardread/data/bandera_dev/ and quirky_dev/, README there), each read with its mechanism on and off; each test
fails with it off (checked)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.boards import BoardSpec
from tests.boardread.test_board_reading import _camera, _options
from tests.boardread.test_board_round7_bandera import _read as _read_bandera
from vision.board_classify import ClassifyBoardConfig, _dot_in_other, config_for
from vision.board_pipeline import read_board

QUIRKY = Path(__file__).resolve().parent / "data" / "quirky_dev"


def _read_quirky(name: str, cfg: ClassifyBoardConfig) -> dict[tuple[int, int], str]:
    doc = json.loads((QUIRKY / f"{name}.json").read_text())
    img = cv2.imread(str(QUIRKY / f"{name}.jpg"))
    assert img is not None
    r = read_board([(name, np.asarray(img, np.uint8))], "quirky", spec=BoardSpec.from_json(doc["board"]),
                   camera=_camera(doc), options=_options("quirky", doc), classify_config=cfg)
    return {(int(c.key[0]), int(c.key[1])): c.kind for c in r.images[0].cells}


def _truth_quirky(name: str) -> dict[tuple[int, int], list[str]]:
    doc = json.loads((QUIRKY / f"{name}.json").read_text())
    out: dict[tuple[int, int], list[str]] = {}
    for e in doc["cells"]:
        out.setdefault((int(e["x"]), int(e["y"])), []).append(str(e["piece"]))
    return out


def test_a_neighbours_character_is_no_cube_here() -> None:
    """Renders s8_b1_010 (0, 4) and s8_r2_017 (8, 6): empty cells next to a stack carrying a character.  The
    character stands above its cubes, which no hypothesis has: the empty cell's probes whose rays meet it saw "a
    piece", and the cell read as a cube (s8_r2_017: with a green character, the neighbour's).  Decided again
    without those probes (``beside_tall``), both are empty."""
    cfg = config_for("bandera")
    assert cfg.beside_tall >= 1  # (3 since session 14: the banner test too)
    for name, cell in (("s8_b1_010", (0, 4)), ("s8_r2_017", (8, 6))):
        doc = json.loads((Path(__file__).resolve().parent / "data" / "bandera_dev" / f"{name}.json").read_text())
        assert not [e for e in doc["cells"] if (e["x"], e["y"]) == cell]  # (empty in the truth)
        on = _read_bandera(name)
        off = _read_bandera(name, replace(cfg, beside_tall=0))
        assert on[cell].kind == "empty", on[cell]
        assert off[cell].kind == "cube", off[cell]
        # the neighbour whose character it was keeps it
        assert any(on[k].character for k in on if max(abs(k[0] - cell[0]), abs(k[1] - cell[1])) == 1)


def test_a_tokens_own_dot_is_no_dust_bunny() -> None:
    """Every printed token has a white disc with a dark centre.  Renders s8_held_003 (4, 4), a seed, and s8_q1_003
    (3, 4), Quirky's flag: the token's own dark centre, with the pale disc round it, read as a dust bunny's dot, and
    the cell as two tokens.  The dot has the token's colour all round it (``token_dot_owner``): one token."""
    cfg = config_for("quirky")
    assert cfg.token_dot_owner > 0
    for name, cell, kind in (("s8_held_003", (4, 4), "seed"), ("s8_q1_003", (3, 4), "flag")):
        assert len(_truth_quirky(name)[cell]) == 1
        on = _read_quirky(name, cfg)
        off = _read_quirky(name, replace(cfg, token_dot_owner=0.0))
        assert on[cell] == kind, on[cell]
        assert off[cell] == f"dust+{kind}", off[cell]


def test_a_pale_token_shows_its_dot() -> None:
    """Render s8_bp_009 (warm light): the paper in a warm light patch at (0, 2) took the fossil's pale yellow, and
    two seeds ((1, 4), (4, 4)) were read with a fossil too (their pale disc round the dark centre).  A fossil, as
    pale as the lit paper, must show its dot (``token_dot_pale``), and a dot amid the seed's colour is the seed's:
    (0, 2) empty, the seeds alone.  Without the pale rule all three read a fossil."""
    cfg = config_for("quirky")
    assert cfg.token_dot_pale > 0
    truth = _truth_quirky("s8_bp_009")
    assert (0, 2) not in truth and truth[(1, 4)] == ["seed"] and truth[(4, 4)] == ["seed"]
    on = _read_quirky("s8_bp_009", cfg)
    off = _read_quirky("s8_bp_009", replace(cfg, token_dot_pale=0.0))
    assert (on[(0, 2)], on[(1, 4)], on[(4, 4)]) == ("empty", "seed", "seed"), on
    assert (off[(0, 2)], off[(1, 4)], off[(4, 4)]) == ("fossil", "fossil+seed", "fossil+seed"), off
    # the fossil that is there is still read
    fossils = [k for k, v in truth.items() if "fossil" in v]
    assert fossils and all(on[k] == "fossil" for k in fossils), {k: on[k] for k in fossils}


def test_dot_in_other_needs_the_other_token_all_round() -> None:
    """``_dot_in_other``: a dot amid another token's probes (on 3 of its 4 sides or more) gives that token's share
    of the ring round it; a dot beside it (the other token on one side only: two tokens sharing a cell) gives 0."""
    dot = np.zeros((9, 9), bool)
    dot[4, 4] = True
    seen = np.ones(81, bool)
    around = np.ones((9, 9), bool)
    around[3:6, 3:6] = False
    assert _dot_in_other(dot.ravel(), around.ravel(), seen, 9) == 1.0
    one_side = np.zeros((9, 9), bool)
    one_side[:, 6:] = True
    assert _dot_in_other(dot.ravel(), one_side.ravel(), seen, 9) == 0.0


def test_a_tower_hardly_better_than_one_cube_is_declined() -> None:
    """Fixture scene 4 (4, 1) holds one cube, read as a two-cube stack whose probes one cube explains almost as
    well (confidence 0.10).  A plain tower read with less confidence than ``tower_min_conf`` (0.3, the confidence
    under which the reconstruction already warns "cell-unsure") is declined: ``unseen``, with a note saying why,
    which the reconstruction gives as the cell's warning.  Off: read as a tower (wrong)."""
    from tests.boardread.test_board_round5_bandera import read_bandera
    from tests.boardread.test_board_s7_edge import FIXTURES

    cfg = config_for("bandera")
    assert cfg.tower_min_conf == 0.3
    stem = FIXTURES / "scene_004"
    truth = json.loads(stem.with_suffix(".json").read_text())
    assert [e["piece"] for e in truth["cells"] if (e["x"], e["y"]) == (4, 1)] == ["cube"]
    on = read_bandera(stem)
    off = read_bandera(stem, replace(cfg, tower_min_conf=0.0))
    assert off[(4, 1)].kind == "tower2" and off[(4, 1)].confidence < 0.3, off[(4, 1)]
    assert on[(4, 1)].kind == "unseen", on[(4, 1)]
    assert "hardly more than one cube" in on[(4, 1)].notes[0], on[(4, 1)].notes
    # a sure tower of the scene is still read
    sure = [k for k, c in off.items() if c.kind == "tower2" and c.confidence >= 0.3]
    assert sure and all(on[k].kind == "tower2" for k in sure)
    # the note is the reconstruction's warning for the cell
    from vision.board_reconstruct import _reader_problems

    probs = _reader_problems([on[(4, 1)]], 0.3)
    assert probs and probs[0].code == "cell-unseen" and "hardly more than one cube" in probs[0].message
