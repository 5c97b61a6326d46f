"""Gridopolis, session 16 (docs/boards_vision.md, "Session 16: Gridopolis blue in the shade"): blue against the
shade under and beside the pads, decided against a reference measured on the spot -- the site's own pad's ring, seen
round the piece -- and on the colour before the local light's correction (the lit pads round a site show the lamps'
light, not the sky's cool fill that lights the shade under a pad).  Two development renders
(tests/boardread/data/gridopolis_dev/README.md, SIMULATED); each test also runs with its switch off and fails then."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.boardread.test_board_round5 import read_gridopolis, truth_pieces
from vision.board_classify import CellReading, ClassifyBoardConfig, config_for

DEV = Path(__file__).resolve().parent / "data" / "gridopolis_dev"
TRUTH = "render truth (simulated camera)"


def _read(path: Path, cfg: ClassifyBoardConfig | None = None) -> tuple[dict[tuple[int, ...], CellReading], dict]:
    return read_gridopolis(path, TRUTH, cfg)


def _others_alike(on: dict[tuple[int, ...], CellReading], off: dict[tuple[int, ...], CellReading],
                  keys: set[tuple[int, ...]]) -> None:
    for k, r in on.items():
        if k not in keys:
            assert k in off and (off[k].kind, off[k].colour) == (r.kind, r.colour), k


def test_the_shade_under_pads_made_blue_by_a_warm_light_correction_is_not_read() -> None:
    """dev_s16_h9005 (warm light): three empty pads under level 1 on (4, 2..4, 0) read blue once their colour is put in
    the light of the lit pads round them (chroma / L* 0.79-0.98); before that correction they show 0.32-0.44, the
    sky's cool fill in the shade.  With ``saturation_under_unlit`` both must clear the floor: declined, not blue."""
    keys = {(4, 2, 0), (4, 3, 0), (4, 4, 0)}
    on, doc = _read(DEV / "dev_s16_h9005")
    off, _ = _read(DEV / "dev_s16_h9005", replace(config_for("gridopolis"), saturation_under_unlit=False))
    truth = truth_pieces(doc)
    for k in keys:
        assert truth.get(k, ("empty", None))[0] == "empty"
        assert off[k].colour == "blue" and off[k].kind in ("pawn", "blocker")
        assert on[k].kind == "unseen"
    _others_alike(on, off, keys)


def test_a_piece_that_looks_like_its_own_pads_ring_is_declined() -> None:
    """dev_s16_h15b004 (dim, a hand): the lavender pads' shaded undersides seen on (4, 2, 2) and (4, 4, 2) read blue
    pawns; their colour lies within 3.5 (CIELAB) of their own pads' rings seen round them.  With ``ring_alike_de``
    declined, with it off blue pawns where none is."""
    keys = {(4, 2, 2), (4, 4, 2)}
    on, doc = _read(DEV / "dev_s16_h15b004")
    off, _ = _read(DEV / "dev_s16_h15b004", replace(config_for("gridopolis"), ring_alike_de=0.0))
    truth = truth_pieces(doc)
    for k in keys:
        assert truth.get(k, ("empty", None))[0] == "empty"
        assert (off[k].kind, off[k].colour) == ("pawn", "blue")
        assert on[k].kind == "unseen"
        assert any("looks like its own pad" in n for n in on[k].notes)
    _others_alike(on, off, keys)
