"""Gridopolis, session 14 (docs/boards_vision.md, "Session 14: Gridopolis boards not exact"): a yellow marker whose
top is bluer in the middle than on its rim (the gold crown's sign, ``yellow_crown``) but spans little L* there (one
flat face, ``yellow_crown_flat``) is a pawn: a hard lamp's highlight on a pawn's flat top is as blue as a crown.
Development renders (tests/boardread/data/gridopolis_dev/README.md); the reading test also runs with the switch off
and fails then."""

from __future__ import annotations

from dataclasses import replace

from tests.boardread.test_board_gridopolis_reprobe_s10 import _read, _truth
from vision.board_classify import config_for


def test_yellow_pawns_with_a_highlight_on_their_flat_top_are_pawns() -> None:
    """dev_s14_h11004 (``held11`` scene 4, one hard lamp): three yellow pawns of 1,259-1,368 pixels whose tops are
    bluer in the middle than on the rim by 0.98-1.54 (the crown's sign, from 0.85) but span only 3.1-4.0 of L* there:
    pawns.  With the switch off they are read kings."""
    keys = [(5, 3, 0), (6, 2, 0), (6, 3, 0)]
    on, doc = _read("dev_s14_h11004")
    off, _ = _read("dev_s14_h11004", replace(config_for("gridopolis"), yellow_crown_flat=0.0))
    for key in keys:
        assert _truth(doc, key) == ("pawn", "yellow")
        assert (on[key].kind, on[key].colour) == ("pawn", "yellow")
    assert any(off[key].kind == "king" for key in keys)


def test_a_yellow_king_whose_crown_shows_stays_a_king() -> None:
    """dev_s8_gs019: the yellow king on (6, 4, 0), bluer in the middle by 0.89 and its crown's relief spanning 10.8 of
    L*, is still a king."""
    on, doc = _read("dev_s8_gs019")
    assert _truth(doc, (6, 4, 0)) == ("king", "yellow")
    assert (on[(6, 4, 0)].kind, on[(6, 4, 0)].colour) == ("king", "yellow")


def test_a_red_pawn_in_the_hands_blob_is_read_past_the_hand() -> None:
    """dev_s14_gs2013 (dim, a hand reaching in over red's start row): the red pawn on (0, 2, 0) (1,871 pixels) has
    the hue of skin by the hand finder's range and joins the hand's blob, so every probe of it lies on the hand's mask.
    Its plastic is 20 degrees of hue and 8 of chroma from this hand's own skin: it is read past the hand, a red pawn
    (``past_hand_hue``); with the switch off it is "occluded"."""
    on, doc = _read("dev_s14_gs2013")
    off, _ = _read("dev_s14_gs2013", replace(config_for("gridopolis"), past_hand_hue=0.0))
    assert _truth(doc, (0, 2, 0)) == ("pawn", "red")
    assert (on[(0, 2, 0)].kind, on[(0, 2, 0)].colour) == ("pawn", "red")
    assert off[(0, 2, 0)].kind == "occluded"
    # nothing read past the hand that the truth does not show
    truth = {(e["x"], e["y"], e.get("level", 0)): (e["piece"], e["colour"]) for e in doc["cells"]}
    for key, r in on.items():
        if off[key].kind == "occluded" and r.kind not in ("occluded", "unseen", "empty"):
            assert truth.get(key) == (r.kind, r.colour), key


def test_a_faint_green_pawn_far_from_the_skins_hue_is_read_past_the_hand() -> None:
    """dev_s14_h10001 (cold, a hand laid over the board): the green pawn on (3, 0, 0) (155 pixels seen) lies in the
    hand's shade beside its fingers; its few probes clear of the mask are green (60+ degrees of hue from the skin) but
    no more vivid than skin, and under 0.3 of the site's probes are clear.  It is read a green pawn past the hand
    (``past_hand_far``: faint plastic far from skin's hue counts clear, 4 such probes halve the share needed); with
    the switch off it is "occluded".  Nothing is read past the hand that the truth does not show."""
    on, doc = _read("dev_s14_h10001")
    off, _ = _read("dev_s14_h10001", replace(config_for("gridopolis"), past_hand_far=0.0))
    assert _truth(doc, (3, 0, 0)) == ("pawn", "green")
    assert (on[(3, 0, 0)].kind, on[(3, 0, 0)].colour) == ("pawn", "green")
    assert off[(3, 0, 0)].kind == "occluded"
    truth = {(e["x"], e["y"], e.get("level", 0)): (e["piece"], e["colour"]) for e in doc["cells"]}
    for key, r in on.items():
        if off[key].kind == "occluded" and r.kind not in ("occluded", "unseen", "empty"):
            assert truth.get(key) == (r.kind, r.colour), key
