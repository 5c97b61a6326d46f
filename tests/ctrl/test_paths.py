"""Hand-worked examples for every path case (docs/rules/ctrl.md, "Paths").

Each position is drawn in the comment: the Central Cube fills 0..2 in x, y, z, so its top
surface is the layer z = 3.
"""

from __future__ import annotations

from engine.ctrl import FlagSpot, new_state
from engine.ctrl.geometry import CENTRAL_CUBE, neighbours
from engine.ctrl.paths import explain_path, placements

from .helpers import cells, position

UP, DOWN = (0, 0, 1), (0, 0, -1)
PX, MX, PY, MY = (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)


def test_straight_along_the_top() -> None:
    # blue block on the cube's top at (0,1,3); start at (0,0,3), travel +x on the top surface
    s = position({(0, 1, 3): "blue"})
    path = explain_path((0, 0, 3), UP, PX, s.occupied, set())
    assert path == [(0, 0, 3), (1, 0, 3), (2, 0, 3)]
    assert cells(*path) in s.placement_sets()


def test_roll_over_an_edge() -> None:
    # from (0,1,3) travelling +y: (0,2,3) straight, then the top ends: roll down onto the +y face
    s = position({(1, 1, 3): "blue"})
    path = explain_path((0, 1, 3), UP, PY, s.occupied, set())
    assert path == [(0, 1, 3), (0, 2, 3), (0, 3, 2)]
    assert cells(*path) in s.placement_sets()


def test_step_up_a_one_block_wall() -> None:
    s = position({(0, 1, 3): "blue", (2, 0, 3): "pink"})
    path = explain_path((0, 0, 3), UP, PX, s.occupied, set())
    assert path == [(0, 0, 3), (1, 0, 3), (2, 0, 4)]
    assert cells(*path) in s.placement_sets()


def test_climb_a_tall_wall_and_roll_over_its_top() -> None:
    # a two-high pink tower at (1,0,3),(1,0,4): climb its -x face, then roll onto its top
    s = position({(0, 1, 3): "blue", (1, 0, 3): "pink", (1, 0, 4): "pink"})
    path = explain_path((0, 0, 3), UP, PX, s.occupied, set())
    assert path == [(0, 0, 3), (0, 0, 4), (1, 0, 5)]
    assert cells(*path) in s.placement_sets()


def test_climb_into_an_overhang_is_obstructed() -> None:
    # climbing up the -x face of a three-high tower whose top is capped towards us: the next
    # block would hang under the cap (new N = -z)
    occ = set(CENTRAL_CUBE) | {(1, 0, 3), (1, 0, 4), (1, 0, 5), (0, 0, 6), (1, 0, 6)}
    # from (0,0,4) on the tower's -x face going +z: ahead (0,0,5) free, (1,0,5) occupied -> straight;
    # then ahead (0,0,6) occupied and (0,0,6)+N = (-1,0,6) free -> step up around the cap
    assert explain_path((0, 0, 4), MX, UP, occ, set()) == [(0, 0, 4), (0, 0, 5), (-1, 0, 6)]
    # with the cap wider, the step up is impossible and the climb would point down: obstructed
    occ |= {(-1, 0, 6)}
    assert explain_path((0, 0, 4), MX, UP, occ, set()) is None


def test_step_down_an_edge() -> None:
    s = position({(0, 0, 3): "blue"})
    path = explain_path((0, 0, 4), UP, PX, s.occupied, set())
    assert path == [(0, 0, 4), (1, 0, 3), (2, 0, 3)]
    assert cells(*path) in s.placement_sets()


def test_step_up_then_down() -> None:
    s = position({(0, 1, 3): "blue", (1, 0, 3): "pink"})
    path = explain_path((0, 0, 3), UP, PX, s.occupied, set())
    assert path == [(0, 0, 3), (1, 0, 4), (2, 0, 3)]
    assert cells(*path) in s.placement_sets()


def test_table_obstructs_a_path_going_down() -> None:
    s = new_state(4)
    # down the cube's -y face from (0,-1,1): (0,-1,0) is fine, the third block would be in the table
    assert explain_path((0, -1, 1), MY, DOWN, s.occupied, set()) is None
    # rolling under the bottom edge of the blue start block is obstructed too
    assert explain_path((1, -2, 0), MY, DOWN, s.occupied, set()) is None


def test_final_block_next_to_the_table_is_legal() -> None:
    s = position({(0, -1, 2): "blue"})
    path = explain_path((0, -1, 1), MY, DOWN, s.occupied, set(), length=2)
    assert path == [(0, -1, 1), (0, -1, 0)]
    # start on the -y face of the blue block at (0,-1,2) and go down two pink blocks to the table
    s2 = position({(0, -1, 2): "blue", (0, -1, 1): "pink", (0, -1, 0): "pink"})
    path2 = explain_path((0, -2, 2), MY, DOWN, s2.occupied, set())
    assert path2 == [(0, -2, 2), (0, -2, 1), (0, -2, 0)]
    assert cells(*path2) in s2.placement_sets()


def test_opponent_flag_obstructs_but_own_flag_does_not() -> None:
    pink_flag = {"pink": FlagSpot((1, 0, 3), "+z")}
    s = position({(0, 1, 3): "blue"}, flags=pink_flag)
    assert explain_path((0, 0, 3), UP, PX, s.occupied, s.other_flag_cells("blue")) is None
    assert cells((0, 0, 3), (1, 0, 3), (2, 0, 3)) not in s.placement_sets()
    own_flag = {"blue": FlagSpot((1, 0, 3), "+z")}
    s2 = position({(0, 1, 3): "blue"}, flags=own_flag)
    assert cells((0, 0, 3), (1, 0, 3), (2, 0, 3)) in s2.placement_sets()


def test_first_block_never_under_a_block() -> None:
    from engine.ctrl.paths import first_cells

    s = new_state(4)
    firsts = first_cells([(1, -2, 1)], s.occupied | {(1, -2, 1)}, set())
    assert (1, -2, 0) not in firsts  # below the block: never on the bottom of anything
    assert {(1, -2, 2), (0, -2, 1), (2, -2, 1), (1, -3, 1)} <= firsts


def test_first_turn_rule() -> None:
    s = new_state(4)
    assert "blue" in s.first_turn_pending
    restricted = s.placement_sets("blue")
    from dataclasses import replace

    free = replace(s, first_turn_pending=frozenset()).placement_sets("blue")
    forbidden = set()
    for opp in ("pink", "yellow", "green"):
        forbidden |= set(neighbours(s.starts[opp]))
    assert restricted < free
    for pl in free - restricted:
        assert pl & forbidden, pl
    for pl in restricted:
        assert not pl & forbidden
    # hand-checked example: round the corner of the cube towards pink's start
    assert cells((2, -1, 0), (3, 0, 0), (4, 1, 0)) in free - restricted


def test_opening_count_hand_checked() -> None:
    # blue's eight first-turn placements, enumerated by hand from the start block at (1,-1,0)
    s = new_state(4)
    expected = {
        cells((1, -1, 1), (0, -1, 1), (-1, 0, 1)),
        cells((0, -1, 0), (0, -1, 1), (0, -1, 2)),
        cells((0, -1, 0), (1, -2, 0), (2, -1, 0)),
        cells((0, -1, 0), (1, -1, 1), (2, -1, 0)),
        cells((1, -2, 0), (1, -1, 1), (1, -1, 2)),
        cells((1, -1, 1), (1, -1, 2), (1, 0, 3)),
        cells((1, -1, 1), (2, -1, 1), (3, 0, 1)),
        cells((2, -1, 0), (2, -1, 1), (2, -1, 2)),
    }
    assert s.placement_sets() == expected


def test_placements_are_distinct_sets() -> None:
    s = position({(0, 1, 3): "blue"})
    pls = s.placements()
    assert len(pls) == len({frozenset(p.cells) for p in pls})
    assert all(len(p.cells) == 3 for p in pls)


def test_pass_when_no_path() -> None:
    # green's start boxed in: every neighbour occupied or flagged
    from engine.ctrl.moves import Pass

    s = new_state(4)
    g = s.starts["green"]
    box = {n: "pink" for n in neighbours(g) if n not in s.occupied and n[2] >= 0}
    s2 = position(box, to_move="green")
    assert s2.placement_sets() == set()
    assert s2.legal_moves() == [Pass()]


def test_placements_function_length_one() -> None:
    s = new_state(4)
    ones = placements([s.starts["blue"]], s.occupied, set(), length=1)
    assert cells((1, -1, 1)) in ones and cells((1, -2, 0)) in ones
    assert all(len(p) == 1 for p in ones)
