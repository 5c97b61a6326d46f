"""Robots' quirks, each by a hand-worked example (rulebook "Aclaraciones"; docs/rules/quirky.md "Robots")."""

from __future__ import annotations

import pytest

from engine.core import IllegalMoveError
from engine.motion import Heading, Pose
from engine.quirky import Card, NeedsChoice, Table, parse_program, resolve_card, resolve_program

from .helpers import card, m, scenario

FAR = "reach = [0, 2]"
LOW = "reach = [0, 1]"


# ----------------------------------------------------------------------------- Twirl


def test_rulebook_twirl_momentum_example_step_by_step() -> None:
    """Rulebook, "Ejemplo: El impulso de Twirl" -- the three cards of the example."""
    scn = scenario("......\n.....#\n..Q...", robot="twirl", facing="E", objective=FAR)
    t0 = Table.initial(scn)
    # 1. Forward 2: two spaces, the momentum marker points the way she moved (east)
    c1 = resolve_card(scn, t0, Card("F2"), 0)
    assert [str(x) for x in c1.motions] == m("F>3,0,E F>4,0,E")
    assert c1.after.momentum is Heading.E
    # 2. Rotate Left; then one more space in the marker's direction; the marker is removed
    c2 = resolve_card(scn, c1.after, Card("RL"), 1)
    assert [str(x) for x in c2.motions] == m("L>4,0,N S:E>5,0,N")
    assert c2.after.momentum is None
    assert c2.after.pose == Pose(5, 0, Heading.N)
    # 3. Forward 2 hits the obstacle straight away and stops: no marker is placed
    c3 = resolve_card(scn, c2.after, Card("F2"), 2)
    assert [str(x) for x in c3.motions] == m("XF>5,0,N")
    assert c3.collided and c3.after.momentum is None
    # the same three cards as one program give the same trace
    res = resolve_program(scn, t0, parse_program("F2 RL F2"))
    assert [str(x) for x in res.motions] == m("F>3,0,E F>4,0,E L>4,0,N S:E>5,0,N XF>5,0,N")


def test_twirl_momentum_resolves_after_a_turn_then_marker_is_gone() -> None:
    scn = scenario(".......\n..Q....", robot="twirl", facing="E", objective=LOW)
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 RR F1"))
    # F2 to (4,0), marker E; RR faces S and the momentum slides her east to (5,0); F1 south: edge, bump
    assert [str(x) for x in res.motions] == m("F>3,0,E F>4,0,E R>4,0,S S:E>5,0,S XF>5,0,S")
    assert res.final.momentum is None


def test_twirl_marker_removed_when_next_card_collides() -> None:
    scn = scenario(".....\nQ..#.", robot="twirl", facing="E", objective=LOW)
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 F1 RL"))
    # F2 to (2,0), marker E; F1 hits the obstacle: the marker is removed without resolving (no slide)
    assert [str(x) for x in res.motions] == m("F>1,0,E F>2,0,E XF>2,0,E L>2,0,N")
    assert res.final.momentum is None


def test_twirl_momentum_slide_that_collides_is_a_bump() -> None:
    scn = scenario("......\n..Q...", robot="twirl", facing="E", objective=LOW)
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 F1"))
    # F2 to (4,0), marker E; F1 to (5,0); the slide east meets the edge: a bump, marker gone
    assert [str(x) for x in res.motions] == m("F>3,0,E F>4,0,E F>5,0,E XS:E>5,0,E")
    assert res.final.momentum is None


def test_twirl_forward2_that_collides_places_no_marker() -> None:
    scn = scenario("......\n..Q...", robot="twirl", facing="E", objective=LOW)
    res = resolve_program(scn, Table.initial(scn), parse_program("RL F2 U"))
    # F2 north from (2,0) meets the edge after one space: collided, so no marker and no slide after U
    assert [str(x) for x in res.motions] == m("L>2,0,N F>2,1,N XF>2,1,N R>2,1,E R>2,1,S")


def test_twirl_forward2_after_forward2_resolves_old_then_keeps_new_marker() -> None:
    scn = scenario("..........\n..Q.......", robot="twirl", facing="E", objective=LOW)
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 F2"))
    assert [str(x) for x in res.motions] == m("F>3,0,E F>4,0,E F>5,0,E F>6,0,E S:E>7,0,E")
    assert res.final.momentum is Heading.E  # the second F2 gave new momentum
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 F2 RL"))
    assert [str(x) for x in res.motions][-2:] == m("L>7,0,N S:E>8,0,N")
    assert res.final.momentum is None


def test_twirl_momentum_persists_into_the_next_round() -> None:
    scn = scenario("......\n..Q...", robot="twirl", facing="E", objective=LOW)
    r1 = resolve_program(scn, Table.initial(scn), parse_program("RR RL RR RL F2"))
    assert r1.final.momentum is Heading.E
    r2 = resolve_program(scn, r1.final, parse_program("RL"))
    assert [str(x) for x in r2.motions] == m("L>4,0,N S:E>5,0,N")


# ----------------------------------------------------------------------------- Gizmo


def test_gizmo_vacuums_dust_on_every_space_it_enters() -> None:
    tokens = (
        '[[tokens]]\nid = "d1"\nkind = "dust"\nat = [0, 1]\n'
        '[[tokens]]\nid = "d2"\nkind = "dust"\nat = [0, 2]\n'
    )
    scn = scenario("...\n...\nQ..", tokens=tokens, objective='collect = ["dust"]')
    res = resolve_program(scn, Table.initial(scn), parse_program("F2 RR F1"))
    assert [str(x) for x in res.motions] == m("F>0,1,N P:d1>0,1,N F>0,2,N P:d2>0,2,N")
    assert res.outcome == "won" and res.resolved == 1  # immediate win: RR and F1 never resolve
    assert res.final.bag == ("d1", "d2")


def test_gizmo_does_not_vacuum_other_kinds_and_jumps_over_dust() -> None:
    tokens = (
        '[[tokens]]\nid = "d1"\nkind = "dust"\nat = [0, 1]\n[[tokens]]\nid = "sock"\nat = [0, 2]\n'
        '[[tokens]]\nid = "d2"\nkind = "dust"\nat = [2, 2]\n'
    )
    scn = scenario("...\n...\nQ..", tokens=tokens, objective='collect = ["dust"]')
    got, after = card(scn, "J2")
    assert got == m("J:2>0,2,N")
    assert after.bag == () and after.token("sock").at == (0, 2)


# ----------------------------------------------------------------------------- items on obstacles


def test_item_on_obstacle_falls_beyond_and_breaks_when_robot_collides() -> None:
    tokens = '[[tokens]]\nid = "vase"\nat = [0, 1]\n'
    scn = scenario("...\n#..\nQ..", tokens=tokens, objective=FAR)
    got, after = card(scn, "F1")
    assert got == m("XF>0,0,N")
    assert after.token("vase").at == (0, 2) and after.token("vase").broken


def test_item_falls_onto_robot_space_when_beyond_is_blocked() -> None:
    tokens = '[[tokens]]\nid = "vase"\nat = [0, 1]\n'
    scn = scenario("#..\nQ..", tokens=tokens, objective="reach = [2, 1]")
    _, after = card(scn, "F1")
    assert after.token("vase").at == (0, 0) and after.token("vase").broken


def test_breaking_an_intact_item_loses_immediately() -> None:
    tokens = '[[tokens]]\nid = "vase"\nat = [0, 1]\n'
    scn = scenario("...\n#..\nQ..", tokens=tokens, objective='reach = [2, 2]\nintact = ["vase"]')
    res = resolve_program(scn, Table.initial(scn), parse_program("F1 RR F2"))
    assert res.outcome == "lost" and res.resolved == 1


# ----------------------------------------------------------------------------- Rover


def test_rover_pick_up_and_drop() -> None:
    tokens = '[[tokens]]\nid = "ball"\nat = [0, 1]\n'
    scn = scenario(
        "...\n...\nQ..",
        robot="rover",
        tokens=tokens,
        objective="deliver = { ball = [0, 2] }",
        extra="[deck]\nadd = { PK = 1, DR = 1 }",
    )
    res = resolve_program(scn, Table.initial(scn), parse_program("F1 PK F1 DR"))
    assert [str(x) for x in res.motions] == m("F>0,1,N P:ball>0,1,N F>0,2,N D:ball>0,2,N")
    assert res.outcome == "won"


def test_rover_ignores_a_command_that_would_drop_a_long_token_through_a_barrier() -> None:
    """Rulebook, "Dejar caer tokens a través de barreras": the plank overhangs the space behind Rover."""
    tokens = '[[tokens]]\nid = "plank"\nat = [1, 1]\nlong = true\n'
    scn = scenario(
        "...\n...\n.Q.",
        robot="rover",
        facing="N",
        tokens=tokens,
        objective=FAR,
        extra="[deck]\nadd = { PK = 1 }",
    )
    _, t = card(scn, "F1")
    _, t = card(scn, "PK", t)  # Rover on (1,1) facing N: the plank's tail is on (1,0)
    assert t.held == ("plank",)
    # Backward 1 would put Rover on (1,0) and the tail on (1,-1), off the board: ignored entirely
    tr = resolve_card(scn, t, Card("B1"))
    assert tr.ignored and tr.motions == () and tr.after == t
    # Rotate Left: Rover faces W, the tail swings to (2,1): allowed
    tr = resolve_card(scn, t, Card("RL"))
    assert not tr.ignored and tr.after.pose.heading is Heading.W
    # the same turn with a wall between (1,1) and (2,1): the tail would hang across it: ignored
    scn2 = scenario(
        "...\n...\n.Q.",
        robot="rover",
        facing="N",
        tokens=tokens,
        objective=FAR,
        walls='"1,1,E"',
        extra="[deck]\nadd = { PK = 1 }",
    )
    tr = resolve_card(scn2, t, Card("RL"))
    assert tr.ignored


def test_rover_ignored_card_resolves_nothing_even_partly() -> None:
    tokens = '[[tokens]]\nid = "plank"\nat = [1, 1]\nlong = true\n'
    scn = scenario(
        "...\n...\n.Q.",
        robot="rover",
        facing="N",
        tokens=tokens,
        objective=FAR,
        extra="[deck]\nadd = { PK = 1 }",
    )
    _, t = card(scn, "F1")
    _, t = card(scn, "PK", t)
    _, t = card(scn, "F1", t)  # Rover (1,2) tail (1,1)
    tr = resolve_card(scn, t, Card("U"))  # first quarter turn: tail (0,2) fine; second: tail (1,3) off board
    assert tr.ignored and tr.after.pose == t.pose


# ----------------------------------------------------------------------------- Penny


def test_penny_choice_among_shared_tokens_and_swap() -> None:
    """Rulebook, "Tokens para compartir espacios": the players choose any token, even one underneath."""
    tokens = (
        '[[tokens]]\nid = "cup"\nat = [0, 1]\n[[tokens]]\nid = "book"\nat = [0, 1]\n'
        '[[tokens]]\nid = "rug"\nat = [0, 1]\nfixed = true\n'
    )
    scn = scenario(
        "...\n...\nQ..",
        robot="penny",
        tokens=tokens,
        objective="deliver = { cup = [0, 2] }",
        extra="[deck]\nadd = { PK = 2, DR = 2, SW = 1 }",
    )
    _, t = card(scn, "F1")
    with pytest.raises(NeedsChoice) as need:
        resolve_card(scn, t, Card("PK"))
    assert need.value.candidates == ("book", "cup")  # topmost first; the fixed rug cannot be picked
    with pytest.raises(IllegalMoveError):
        resolve_card(scn, t, Card("PK"), choice="rug")
    _, t = card(scn, "PK", t, choice="cup")  # the one underneath
    assert t.held == ("cup", "")
    _, t = card(scn, "PK", t)  # only the book is left: no choice needed; goes to the left hand
    assert t.held == ("cup", "book")
    got, full = card(scn, "PK", t)
    assert got == [] and full == t  # both hands full: no effect
    _, t = card(scn, "SW", t)
    assert t.held == ("book", "cup")
    _, t = card(scn, "F1", t)
    got, t = card(scn, "DR", t)  # Drop uses the right hand: the book
    assert got == m("D:book>0,2,N") and t.token("book").at == (0, 2)


def test_resolve_program_default_choice_is_topmost_and_choices_override() -> None:
    tokens = '[[tokens]]\nid = "cup"\nat = [0, 1]\n[[tokens]]\nid = "book"\nat = [0, 1]\n'
    scn = scenario(
        "...\n...\nQ..", robot="penny", tokens=tokens, objective=FAR, extra="[deck]\nadd = { PK = 2 }"
    )
    prog = parse_program("F1 PK")
    assert resolve_program(scn, Table.initial(scn), prog).final.held == ("book", "")
    assert resolve_program(scn, Table.initial(scn), prog, {1: "cup"}).final.held == ("cup", "")
