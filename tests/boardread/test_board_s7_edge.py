"""Session 7, Captura la Bandera: a royal tower beside a hand read by its flag (docs/boards_vision.md, "Session 7: a
royal tower beside a hand, read by its flag").  Rendered pictures (SIMULATED photographs: a committed fixture and
development renders in tests/boardread/data/bandera_dev/, README there), read with ``cover_flag`` on and off; each
test fails with it off."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5_bandera import read_bandera
from tests.boardread.test_board_round7_bandera import ROOT, _read
from vision.board_classify import config_for

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "bandera"


def _royal(stem: Path) -> dict[tuple[int, int], str]:
    doc = json.loads(stem.with_suffix(".json").read_text())
    return {(int(b["x"]), int(b["y"])): str(b["flag"]) for b in doc["state"]["board"] if b.get("flag")}


def test_a_royal_tower_beside_a_hand_is_read_by_its_flag() -> None:
    """Render s7_001 (green's royal tower at (9, 6), its lower cube behind a fingertip) and fixture scene 0 (red's
    at (9, 3), beside the fingers): the hand covers the sites, which were declined (occluded).  The flag, looked
    for on the probes clear of the hand, is seen over them: each is that player's royal tower, two cubes
    (docs/rules/bandera.md, section 3), with a note saying why.  Off: declined."""
    cfg = config_for("bandera")
    assert cfg.cover_flag
    for stem, cell, colour in ((ROOT / "s7_001", (9, 6), "green"), (FIXTURES / "scene_000", (9, 3), "red")):
        assert _royal(stem)[cell] == colour
        on = read_bandera(stem)
        off = read_bandera(stem, replace(cfg, cover_flag=False))
        assert (on[cell].kind, on[cell].colour, on[cell].cubes) == ("royal_tower", colour, 2), on[cell]
        assert any("a hand hides part of" in n for n in on[cell].notes), on[cell].notes
        assert off[cell].kind == "occluded", off[cell]
        # nothing else of the scene changes but the cell
        assert all((on[k].kind, on[k].cubes) == (off[k].kind, off[k].cubes) for k in on if k[:2] != cell)


def test_a_neighbours_banner_seen_past_the_hand_is_not_the_covered_sites() -> None:
    """Render s7ba_013 (dim light): a hand covers (9, 5) (empty) and red's royal tower at (9, 0); green's royal
    tower stands at (9, 6), beside the hand, its flag not found there.  Green's banner is seen over (9, 5) too:
    looked at with (9, 6), the banner is nearer (9, 6)'s middle and is not (9, 5)'s, which stays declined; red's
    royal tower at (9, 0) is read (declined with ``cover_flag`` off)."""
    cfg = config_for("bandera")
    assert _royal(ROOT / "s7ba_013")[(9, 0)] == "red" and (9, 5) not in _royal(ROOT / "s7ba_013")
    on = _read("s7ba_013")
    off = _read("s7ba_013", replace(cfg, cover_flag=False))
    assert on[(9, 5)].kind == "occluded", on[(9, 5)]
    assert (on[(9, 0)].kind, on[(9, 0)].colour) == ("royal_tower", "red"), on[(9, 0)]
    assert off[(9, 0)].kind == "occluded", off[(9, 0)]
