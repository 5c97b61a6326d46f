"""Scoring examples (rulebook "End Game & Scoring"; docs/rules/ctrl.md, "Scoring")."""

from __future__ import annotations

from dataclasses import replace

from engine.ctrl import FlagSpot, new_state
from engine.ctrl.scoring import flag_height, winners

from .helpers import position


def test_setup_scores_four_each() -> None:
    # each start block shows three side faces and its top (the flag on top is seen end-on from above)
    s = new_state(4)
    assert s.totals() == {"blue": 4, "pink": 4, "yellow": 4, "green": 4}
    sides = s.side_scores()
    assert sides["-y"]["blue"] == 1 and sides["+y"]["blue"] == 0  # its +y face touches the cube
    assert sides["top"] == {"blue": 1, "pink": 1, "yellow": 1, "green": 1}


def test_flag_hides_a_face() -> None:
    # a pink flag standing in front of blue's -y face, pole along +x (perpendicular to the view)
    s = position({}, flags={"pink": FlagSpot((1, -2, 0), "+x")})
    assert s.side_scores()["-y"]["blue"] == 0
    views = [v for v in s.face_views() if v.cell == (1, -1, 0) and v.side == "-y"]
    assert views[0].status == "flag"


def test_flag_seen_end_on_does_not_hide() -> None:
    # the same cell, pole pointing -y: looking from -y we see the flag end-on
    s = position({}, flags={"pink": FlagSpot((1, -2, 0), "-y")})
    assert s.side_scores()["-y"]["blue"] == 1
    # and from above, a flag pointing up never hides the face below it
    s2 = position({}, flags={"blue": FlagSpot((1, -1, 1), "+z")})
    assert s2.side_scores()["top"]["blue"] == 1


def test_flag_on_top_hides_top_face_when_lying_flat() -> None:
    s = position({}, flags={"yellow": FlagSpot((1, -1, 1), "+x")})
    assert s.side_scores()["top"]["blue"] == 0


def test_face_hidden_by_a_block_further_out() -> None:
    # pink two cells in front of blue's -y face, with an empty cell between
    s = position({(1, -3, 0): "pink"})
    sides = s.side_scores()
    assert sides["-y"]["blue"] == 0  # hidden although not touching
    status = {v.side: v.status for v in s.face_views() if v.cell == (1, -3, 0)}
    assert status["+y"] == "hidden"  # pink's +y face looks at blue
    assert status["-y"] == "counted"
    assert sides["-y"]["pink"] == 1 + 1  # this block and pink's start block


def test_bottom_never_counts_and_totals_add_up() -> None:
    s = position({(1, 1, 3): "blue"})
    sides = s.side_scores()
    assert sum(sides[side]["blue"] for side in sides) == s.totals()["blue"]
    # the top block shows all four sides and its top; its bottom rests on the cube and never counts
    assert s.totals()["blue"] == 4 + 5


def test_tie_break_by_flag_height() -> None:
    flags = {"blue": FlagSpot((0, 0, 3), "+z"), "pink": FlagSpot((4, 1, 3), "+x")}
    assert flag_height(flags["blue"]) == 4.0 and flag_height(flags["pink"]) == 3.5
    assert winners({"blue": 10, "pink": 10, "green": 9}, flags, ["blue", "pink", "green"]) == ["blue"]
    # same height: shared win
    flags2 = {"blue": FlagSpot((0, 0, 3), "+z"), "pink": FlagSpot((1, 1, 3), "+z")}
    assert winners({"blue": 10, "pink": 10}, flags2, ["blue", "pink"]) == ["blue", "pink"]
    # no tie: the flag does not matter
    assert winners({"blue": 9, "pink": 10}, flags, ["blue", "pink"]) == ["pink"]


def test_two_player_variant_scores_only_the_chosen_colours() -> None:
    s = new_state(2, scoring={"player1": "yellow", "player2": "pink"})
    s = replace(s, blocks={**s.blocks, (1, 1, 3): "blue"})
    assert s.totals()["blue"] > s.totals()["yellow"]
    # blue is player1's decoy: it does not win even with the highest total
    assert s.winners() == ["yellow", "pink"] or s.winners() in (["yellow"], ["pink"])
    assert "blue" not in s.winners()
    assert set(s.returns()) == {"player1", "player2"}
