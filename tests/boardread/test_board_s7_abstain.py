"""Session 7, Captura la Bandera: pieces erased or declined only when the evidence says so (docs/boards_vision.md,
"Session 7: a cube's sockets against the shadows' light, the tinted-patch test and the hand grouping").  Each
mechanism on a rendered picture (SIMULATED photographs: development renders in tests/boardread/data/bandera_dev/,
README there), read with it on and off; each test fails with its mechanism off."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import vision.board_classify as bc
from tests.boardread.test_board_round7_bandera import ROOT, _read
from vision.board_classify import config_for


def _truth_cubes(name: str) -> dict[tuple[int, int], int]:
    doc = json.loads((ROOT / f"{name}.json").read_text())
    return {(int(b["x"]), int(b["y"])): int(b["cubes"]) for b in doc["state"]["board"]}


def test_an_ivory_cube_the_shadows_light_erased_shows_its_sockets() -> None:
    """Renders s7ba_004 (dim light) and s7bb_009 (warm): ivory cubes at (6, 1), and at (4, 4) and (5, 4).  Their
    shaded faces match the print as the shadows' light shows it (``shadow_tint``): every probe reads "no
    piece", the sites are not even candidates, and they read empty.  Looked at for a cube's sockets all the
    same (``shadow_sockets``), their dark sockets show on two faces: one cube."""
    cfg = config_for("bandera")
    assert cfg.shadow_tint and cfg.shadow_sockets
    for name, cells in (("s7ba_004", [(6, 1)]), ("s7bb_009", [(4, 4), (5, 4)])):
        truth = _truth_cubes(name)
        assert all(truth.get(c) == 1 for c in cells)
        on = _read(name)
        off = _read(name, replace(cfg, shadow_sockets=False, socket_all=False))  # (session 9: every site looked at)
        assert [(on[c].kind, on[c].cubes) for c in cells] == [("cube", 1)] * len(cells), [on[c] for c in cells]
        assert [off[c].kind for c in cells] == ["empty"] * len(cells), [off[c] for c in cells]
        # nothing else of the scene changes
        assert all((on[k].kind, on[k].cubes) == (off[k].kind, off[k].cubes) for k in on if k[:2] not in cells)


def test_a_cube_beside_grouped_fingers_whose_top_socket_shows_is_read() -> None:
    """Render s7_005 (warm light): wood cubes at (7, 0) and (7, 1) beside a character and an orange cube; the
    hand grouping (``cover_join_px``: skin blobs 2 px apart in the shrunk picture are one hand) joins the wood
    (skin-hued) cubes' blobs into a hand's size, and the cells are declined as covered.  Each cube's top face
    shows its socket, bare: nothing stands on the cube and nothing hides its top, so the whole stack is seen
    (``cover_socket_top``): read as one cube, no character.  Off: declined (occluded)."""
    cfg = config_for("bandera")
    assert cfg.cover_join_px > 0 and cfg.cover_socket_top == 1
    cells = [(7, 0), (7, 1)]
    truth = _truth_cubes("s7_005")
    assert all(truth.get(c) == 1 for c in cells)
    on = _read("s7_005")
    off = _read("s7_005", replace(cfg, cover_socket_top=0))
    assert [(on[c].kind, on[c].cubes, on[c].character) for c in cells] == [("cube", 1, False)] * 2, \
        [on[c] for c in cells]
    assert [off[c].kind for c in cells] == ["occluded"] * 2, [off[c] for c in cells]


def test_a_royal_tower_the_tinted_patch_test_would_erase_keeps_its_socket() -> None:
    """Render s7_023 (warm light), red's royal tower at (9, 0).  With the tinted-patch test loosened (a ring share
    of 0.25 on 4 points, a*b* 14: as a light whose colour matches a piece's surroundings would make it), the
    tower reads empty; one of its faces shows a cube's socket, which no patch of light has (``tint_sockets``):
    kept.  (At the shipped thresholds the tower is not taken for a patch at all.  Its flag, ``tint_flags``, keeps
    it as well: off here.)"""
    cfg = config_for("bandera")
    assert cfg.tint_sockets == 1
    loose = replace(cfg, tint_share=0.25, tint_points=4, tint_de=14.0, tint_flags=False)
    assert _truth_cubes("s7_023").get((9, 0)) == 2
    on = _read("s7_023", loose)[(9, 0)]
    # (session 8's ``royal_missing`` would decline the emptied square: off too)
    off = _read("s7_023", replace(loose, tint_sockets=0, royal_missing=0.0))[(9, 0)]
    assert (on.kind, on.cubes, on.colour) == ("royal_tower", 2, "red"), on
    assert off.kind == "empty", off


def test_the_new_settings_stay_with_bandera() -> None:
    for game in ("quirky", "gridopolis"):
        cfg = config_for(game)
        assert not cfg.shadow_sockets and cfg.tint_sockets == 0 and cfg.cover_socket_top == 0 and not cfg.tint_flags
        assert cfg.character_once_mm == 0


def test_a_blurred_dust_bunnys_dot_is_darker_than_its_ring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixture quirky 0 (a blurred picture: motion blur over markers of 15-30 px): the dust bunnies at (4, 2)
    and (2, 4) match the grey token's colour on over half their probes, but a grey token must show its printed
    dark centre (a shadow on the paper does not), and blur lifts the dot to L* 60-67 (needed: under 60, 30
    below the print): read empty.  The dot is still 14-23 L* darker than the mean of its eight neighbours (the
    token's light ring round it; a shadow is smooth): with ``token_dot_local`` it counts, and both read as dust
    bunnies; nothing else of the scene changes."""
    from tests.boardread.test_board_session7_bandera import _read_quirky

    cfg = config_for("quirky")
    assert cfg.token_dot_local == 10.0
    on = _read_quirky(0)
    assert on[(4, 2)].kind == "dust" and on[(2, 4)].kind == "dust", (on[(4, 2)], on[(2, 4)])
    monkeypatch.setattr(bc, "config_for", lambda game: replace(config_for(game), token_dot_local=0.0))
    off = _read_quirky(0)
    assert off[(4, 2)].kind == "empty" and off[(2, 4)].kind == "empty", (off[(4, 2)], off[(2, 4)])
    assert all(on[k].kind == off[k].kind for k in on if k not in ((4, 2), (2, 4)))


def test_a_neighbours_character_is_not_read_on_the_royal_tower_too() -> None:
    """Render dev_s7_005 (the shared development set's scene 5, warm light): blue's royal tower at (0, 0) has no
    character; blue's stands on the cube at (1, 0), next to it, and is read there (2-3 mm from the top's middle),
    and on the royal tower as well (behind its blue banner).  Each player has one character (docs/rules/
    bandera.md, section 1): the one read on the neighbour's middle is kept, the tower's dropped
    (``character_once_mm``).  Off: blue's character read twice."""
    cfg = config_for("bandera")
    assert cfg.character_once_mm == 5.0
    doc = json.loads((ROOT / "dev_s7_005.json").read_text())
    assert doc["state"]["characters"]["blue"] == {"x": 1, "y": 0}
    on = _read("dev_s7_005")
    off = _read("dev_s7_005", replace(cfg, character_once_mm=0.0))
    assert (on[(0, 0)].kind, on[(0, 0)].colour, on[(0, 0)].character) == ("royal_tower", "blue", False), on[(0, 0)]
    assert (on[(1, 0)].character, on[(1, 0)].character_colour) == (True, "blue"), on[(1, 0)]
    assert (off[(0, 0)].character, off[(0, 0)].character_colour) == (True, "blue"), off[(0, 0)]


def test_a_royal_tower_the_tinted_patch_test_would_erase_keeps_its_flag() -> None:
    """Render s7_008, blue's royal tower at (0, 0).  With the tinted-patch test loosened as above, the tower reads
    empty and shows no socket (its top carries the flag; ``tint_sockets`` does not keep it); its blue banner
    is seen at the flag's height, which a flat patch of light cannot show (``tint_flags``): kept, read as blue's
    royal tower.  Off: empty."""
    cfg = config_for("bandera")
    assert cfg.tint_flags
    loose = replace(cfg, tint_share=0.25, tint_points=4, tint_de=14.0)
    assert _truth_cubes("s7_008").get((0, 0)) == 2
    on = _read("s7_008", loose)[(0, 0)]
    # (session 8's ``royal_missing`` would decline the emptied square, session 10's ``royal_empty_flag`` read it by
    # its flag as well: off too)
    off = _read("s7_008", replace(loose, tint_flags=False, royal_missing=0.0, royal_empty_flag=False))[(0, 0)]
    assert (on.kind, on.cubes, on.colour) == ("royal_tower", 2, "blue"), on
    assert off.kind == "empty", off
