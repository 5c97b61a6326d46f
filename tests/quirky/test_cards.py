"""Every command card by a hand-worked example (docs/rules/quirky.md, "Cards")."""

from __future__ import annotations

import pytest

from engine.core import InvalidMoveError
from engine.motion import Heading, Pose
from engine.quirky import Card, parse_program

from .helpers import card, m, scenario

OPEN = """
.....
.....
.....
.....
..Q..
"""
# start at (2,0) facing N on an open 5x5 board; objective far away so nothing ends early
FAR = "reach = [0, 4]"


def test_card_parse_round_trip_and_repr() -> None:
    for text in [
        "F1",
        "F2",
        "F3",
        "B1",
        "RL",
        "RR",
        "U",
        "J2",
        "J3",
        "MN",
        "RN",
        "PK",
        "DR",
        "SW",
        "MT:cat>robot",
    ]:
        c = Card.parse(text)
        assert str(c) == text
        assert eval(repr(c)) == c
    assert Card.parse(" f2 ") == Card("F2")
    assert [str(c) for c in parse_program("F2 RL F1 U B1")] == ["F2", "RL", "F1", "U", "B1"]


@pytest.mark.parametrize("bad", ["X1", "F", "MT", "MT:cat", "F2:cat>robot", "", "F2 RL"])
def test_bad_cards_are_invalid(bad: str) -> None:
    with pytest.raises(InvalidMoveError) as err:
        Card.parse(bad)
    assert repr(bad) in str(err.value) or "MT" in str(err.value) or "F2" in str(err.value)


def test_card_backs() -> None:
    assert Card.parse("F3").back == "move"
    assert Card.parse("RL").back == "turn"
    assert Card.parse("PK").back == "act"


def test_forward_1_2_3() -> None:
    scn = scenario(OPEN, objective=FAR)
    assert card(scn, "F1")[0] == m("F>2,1,N")
    assert card(scn, "F2")[0] == m("F>2,1,N F>2,2,N")
    assert card(scn, "F3")[0] == m("F>2,1,N F>2,2,N F>2,3,N")


def test_forward_stops_at_the_edge_with_a_bump() -> None:
    scn = scenario(OPEN, facing="S", objective=FAR)
    got, after = card(scn, "F3")
    assert got == m("XF>2,0,S")
    assert after.pose == Pose(2, 0, Heading.S)


def test_forward_collides_with_an_obstacle_and_stops() -> None:
    scn = scenario(".....\n.....\n..#..\n.....\n..Q..", objective=FAR)
    assert card(scn, "F3")[0] == m("F>2,1,N XF>2,1,N")


def test_wall_between_spaces_is_a_barrier() -> None:
    scn = scenario(OPEN, walls='"2,1,N"', objective=FAR)
    assert card(scn, "F3")[0] == m("F>2,1,N XF>2,1,N")


def test_backward_1() -> None:
    scn = scenario(OPEN, facing="S", objective=FAR)
    assert card(scn, "B1")[0] == m("B>2,1,S")
    scn = scenario(OPEN, facing="N", objective=FAR)
    assert card(scn, "B1")[0] == m("XB>2,0,N")


def test_rotations_and_u_turn() -> None:
    scn = scenario(OPEN, objective=FAR)
    assert card(scn, "RL")[0] == m("L>2,0,W")
    assert card(scn, "RR")[0] == m("R>2,0,E")
    assert card(scn, "U")[0] == m("R>2,0,E R>2,0,S")


def test_rotate_north_from_every_heading() -> None:
    for facing, want in [("N", ""), ("E", "L>2,0,N"), ("W", "R>2,0,N"), ("S", "R>2,0,W R>2,0,N")]:
        scn = scenario(OPEN, facing=facing, objective=FAR)
        assert card(scn, "RN")[0] == (m(want) if want else [])


def test_move_north_slides_without_turning() -> None:
    scn = scenario(OPEN, facing="E", objective=FAR)
    got, after = card(scn, "MN")
    assert got == m("S:N>2,1,E")
    assert after.pose.heading is Heading.E
    scn = scenario(OPEN, facing="E", walls='"2,0,N"', objective=FAR)
    assert card(scn, "MN")[0] == m("XS:N>2,0,E")


def test_jump_passes_over_obstacles() -> None:
    scn = scenario(".....\n.....\n.....\n..#..\n..Q..", objective=FAR)
    assert card(scn, "J2")[0] == m("J:2>2,2,N")


def test_jump_halts_at_last_valid_space_before_an_obstacle() -> None:
    # J3 would land on the obstacle at (2,3): it halts on (2,2)
    scn = scenario(".....\n..#..\n.....\n.....\n..Q..", objective=FAR)
    assert card(scn, "J3")[0] == m("J:2>2,2,N")


def test_jump_collides_at_barriers() -> None:
    scn = scenario(OPEN, walls='"2,1,N"', objective=FAR)
    got, after = card(scn, "J3")
    assert got == m("J:1>2,1,N XF>2,1,N")
    assert after.cell == (2, 1)
    scn = scenario("..Q..\n.....", objective="reach = [0, 0]")
    assert card(scn, "J2")[0] == m("XF>2,1,N")


def test_spin_space_ends_the_move_and_turns_the_robot() -> None:
    scn = scenario(".....\n.....\n..R..\n.....\n..Q..", objective=FAR)
    got, after = card(scn, "F3")
    assert got == m("F>2,1,N F>2,2,N R>2,2,E")
    assert after.pose == Pose(2, 2, Heading.E)
    scn = scenario(".....\n.....\n..L..\n.....\n..Q..", objective=FAR)
    assert card(scn, "F3")[0] == m("F>2,1,N F>2,2,N L>2,2,W")


def test_move_token_moves_one_space_toward_the_target() -> None:
    tokens = '[[tokens]]\nid = "cat"\nat = [0, 4]\n'
    scn = scenario(OPEN, tokens=tokens, objective=FAR, extra='[deck]\nadd = { "MT:cat>robot" = 1 }')
    got, after = card(scn, "MT:cat>robot")
    assert got == []  # tokens are moved by hand: no robot motion
    # cat (0,4) -> robot (2,0): dy=-4 larger than dx=2, so one space south
    assert after.token("cat").at == (0, 3)


def test_move_token_respects_walls_and_obstacles() -> None:
    tokens = '[[tokens]]\nid = "cat"\nat = [0, 4]\n'
    # wall south of the cat: it goes east instead (the other axis that brings it closer)
    scn = scenario(
        OPEN, walls='"0,4,S"', tokens=tokens, objective=FAR, extra='[deck]\nadd = { "MT:cat>robot" = 1 }'
    )
    assert card(scn, "MT:cat>robot")[1].token("cat").at == (1, 4)
    # boxed in by obstacle and wall: no move
    scn = scenario(
        "..#..\n.....\n.....\n.....\n..Q..".replace("..#..", ".#..."),
        walls='"0,4,S"',
        tokens=tokens,
        objective=FAR,
        extra='[deck]\nadd = { "MT:cat>robot" = 1 }',
    )
    assert card(scn, "MT:cat>robot")[1].token("cat").at == (0, 4)


def test_move_token_ignored_when_held_and_toward_holder_when_target_held() -> None:
    tokens = '[[tokens]]\nid = "bone"\nat = [2, 1]\n[[tokens]]\nid = "ball"\nat = [4, 4]\n'
    scn = scenario(
        OPEN,
        robot="rover",
        tokens=tokens,
        objective=FAR,
        extra='[deck]\nadd = { "MT:bone>ball" = 1, "MT:ball>bone" = 1, PK = 1 }',
    )
    _, t = card(scn, "F1")
    _, t = card(scn, "PK", t)  # rover now holds the bone at (2,1)
    assert t.held == ("bone",)
    got, t2 = card(scn, "MT:bone>ball", t)
    assert got == [] and t2 == t  # held token: ignored
    # target held: the ball moves toward the space the holder (rover at 2,1) stands on
    _, t3 = card(scn, "MT:ball>bone", t)
    assert t3.token("ball").at == (4, 3)  # dx=-2, dy=-3: south first


def test_parse_queue_with_pick_choices() -> None:
    from engine.quirky import parse_queue

    cards, choices = parse_queue("RR F3 PK[cup] PK F1")
    assert [str(c) for c in cards] == ["RR", "F3", "PK", "PK", "F1"] and choices == {2: "cup"}
    with pytest.raises(InvalidMoveError, match="only Pick Up"):
        parse_queue("F2[cup]")
