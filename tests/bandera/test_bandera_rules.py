"""Hand-worked examples, one (or more) per rule of Captura la Bandera (docs/rules/bandera.md).

Positions are built by hand with ``bandera_helpers.position``; the expected results are worked
out from the rulebook, not read back from the engine.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from bandera_helpers import M, moves_of, play, position

from engine.bandera import Capture, Move, new_state, validate_state
from engine.bandera.board import PAVED, ZONE_A, ZONE_B, ZONE_C
from engine.core import ChanceEvent, IllegalMoveError, InvalidMoveError

# --------------------------------------------------------------------------- board and set-up


def test_board_is_ten_columns_of_seven_with_zones() -> None:
    # "El tablero está dividido en 70 casillas cuadradas, 10 columnas de 7 casillas cada una."
    assert {(4, 3), (5, 3)} == ZONE_A  # "las dos casillas centrales"
    assert len(ZONE_B) == len(ZONE_C) == 14
    assert all(x in (0, 1) for x, _ in ZONE_B) and all(x in (8, 9) for x, _ in ZONE_C)
    assert {(x, y) for x in (0, 9) for y in range(7)} == PAVED


@pytest.mark.parametrize(("level", "total"), [("easy", 22), ("medium", 18), ("hard", 14), ("dificil", 14)])
def test_two_player_setup_and_levels(level: str, total: int) -> None:
    s = new_state(2, level)
    assert s.players == ("blue", "red")
    assert s.cubes_total == total
    # the royal towers (two cubes each) are the only cubes on the board; "todos los demás" wait
    assert s.stacks == {(0, 3): 2, (9, 3): 2}
    assert s.royal == {"blue": (0, 3), "red": (9, 3)}
    assert s.chars == {"blue": (0, 3), "red": (9, 3)}  # "la coloca junto a la bandera"
    assert s.supply == total - 4
    assert validate_state(s.to_json()) == []


@pytest.mark.parametrize("n", [3, 4])
def test_more_players_start_in_the_corners(n: int) -> None:
    s = new_state(n)
    corners = [(0, 0), (9, 0), (9, 6), (0, 6)][:n]
    assert [s.royal[p] for p in s.players] == corners
    assert s.supply == 22 - 2 * n


def test_the_roll_off_is_a_uniform_chance_event() -> None:
    s = new_state(4)
    assert s.is_chance_node() and s.current_player() is None and s.legal_moves() == []
    outcomes = s.chance_outcomes()
    assert [str(e) for e, _ in outcomes] == ["start:blue", "start:red", "start:green", "start:yellow"]
    assert all(p == Fraction(1, 4) for _, p in outcomes)
    s = s.apply(ChanceEvent("start", "green"))
    assert s.to_move == "green" and s.turn == 1 and s.phase == "place_roll"


def test_each_turn_has_two_dice_with_exact_probabilities() -> None:
    s = new_state(2, first="blue")
    assert s.phase == "place_roll"
    assert s.chance_outcomes() == [(ChanceEvent("place", k), Fraction(1, 6)) for k in range(1, 7)]
    s = s.apply(ChanceEvent("place", 2))
    assert s.phase == "move_roll"
    assert s.chance_outcomes() == [(ChanceEvent("move", k), Fraction(1, 6)) for k in range(1, 7)]
    assert sum(p for _, p in s.chance_outcomes()) == 1


def test_wrong_chance_event_is_rejected() -> None:
    s = new_state(2, first="blue")
    with pytest.raises(IllegalMoveError, match="expected a 'place' chance event"):
        s.apply(ChanceEvent("move", 3))
    with pytest.raises(IllegalMoveError, match="1 to 6"):
        s.apply(ChanceEvent("place", 7))
    with pytest.raises(IllegalMoveError, match="must be rolled first"):
        s.apply(M("pass"))


# --------------------------------------------------------------------------- placement table


@pytest.mark.parametrize("k", [1, 2, 3])
def test_placement_roll_1_to_3_places_nothing(k: int) -> None:
    s = new_state(2, first="blue").apply(ChanceEvent("place", k))
    assert s.phase == "move_roll" and s.supply == 18


def test_placement_roll_4_one_cube_flat_never_on_top() -> None:
    s = new_state(2, first="blue").apply(ChanceEvent("place", 4))
    legal = moves_of(s)
    # 70 squares - 14 of zone C - 2 of zone A - blue's royal tower = 53, plus 'pass'
    assert len(legal) == 54 and "pass" in legal
    assert not any(m.startswith("stack") for m in legal)
    s = s.apply(M("place 1,3"))
    assert s.stacks[(1, 3)] == 1 and s.supply == 17 and s.phase == "move_roll"


def test_placement_roll_5_one_cube_flat_or_on_top_of_another() -> None:
    s = position(phase="place", placement_roll=5, placements_left=1, cubes={(2, 2): 1, (8, 2): 1, (3, 3): 2})
    legal = moves_of(s)
    assert "place 2,3" in legal
    # on top: the single cubes, in any zone (even zone C: rule 6), never the tower or royal towers
    assert {m for m in legal if m.startswith("stack")} == {"stack 2,2", "stack 8,2"}
    t = s.apply(M("stack 8,2"))
    assert t.stacks[(8, 2)] == 2 and t.phase == "move_roll" and t.supply == s.supply - 1


def test_placement_roll_6_two_cubes_flat() -> None:
    s = new_state(2, first="red").apply(ChanceEvent("place", 6))
    assert s.placements_left == 2
    s = s.apply(M("place 8,3"))
    assert s.phase == "place" and s.placements_left == 1
    assert not any(m.startswith("stack") for m in moves_of(s))
    s = s.apply(M("place 7,3"))
    assert s.phase == "move_roll" and s.supply == 16


def test_placing_is_optional_and_limited_by_the_supply() -> None:
    s = new_state(2, first="blue").apply(ChanceEvent("place", 6)).apply(M("pass"))
    assert s.phase == "move_roll" and s.supply == 18
    s = position(phase="place_roll", supply=1, cubes={(2, 2): 1, (3, 2): 1})
    s = s.apply(ChanceEvent("place", 6))
    assert s.placements_left == 1
    s = s.apply(M("place 5,5"))
    assert s.supply == 0 and s.phase == "move_roll"


def test_no_placement_roll_once_every_cube_is_in_play() -> None:
    # "deberéis lanzar el dado sólo para la puntuación de movimiento"
    s = position(supply=0, roll=1, cubes={(1, 3): 1})
    s = s.apply(M("cube 1,3 N"))  # spends the only point: the turn passes to red
    assert s.to_move == "red" and s.phase == "move_roll"


# --------------------------------------------------------------------------- placement rules


def test_no_cube_in_zone_a() -> None:
    s = new_state(2, first="blue").apply(ChanceEvent("place", 4))
    with pytest.raises(IllegalMoveError, match="zone A"):
        s.apply(M("place 4,3"))


def test_two_players_zone_b_and_c() -> None:
    blue = new_state(2, first="blue").apply(ChanceEvent("place", 6))
    assert "place 1,0" in moves_of(blue) and "place 0,6" in moves_of(blue)  # own zone B: yes
    with pytest.raises(IllegalMoveError, match="zone C of red"):
        blue.apply(M("place 8,0"))
    red = new_state(2, first="red").apply(ChanceEvent("place", 4))
    assert "place 8,0" in moves_of(red)
    with pytest.raises(IllegalMoveError, match="zone B of blue"):
        red.apply(M("place 1,6"))


def test_more_players_first_cube_in_front_of_the_royal_tower_then_outside_b_and_c() -> None:
    s = new_state(4, first="blue").apply(ChanceEvent("place", 6))
    assert moves_of(s) == {"place 1,0", "pass"}
    with pytest.raises(IllegalMoveError, match="in front of your royal tower, at 1,0"):
        s.apply(M("place 3,3"))
    s = s.apply(M("place 1,0"))
    legal = moves_of(s)
    # now never in zones B and C: 70 - 28 - 2 (zone A) = 40, plus pass
    assert len(legal) == 41 and "place 1,1" not in legal and "place 2,1" in legal
    with pytest.raises(IllegalMoveError, match="zones B and C"):
        s.apply(M("place 8,5"))


def test_first_cube_follows_the_royal_tower_and_needs_a_free_square() -> None:
    s = position(
        4,
        royal={"blue": (0, 2), "red": (9, 0), "green": (9, 6), "yellow": (0, 6)},
        phase="place",
        placement_roll=4,
        placements_left=1,
    )
    assert moves_of(s) == {"place 1,2", "pass"}
    s = position(4, cubes={(1, 0): 1}, phase="place", placement_roll=4, placements_left=1)
    assert moves_of(s) == {"pass"}  # the square in front is taken by a moved cube
    s = position(4, to_move="green", phase="place", placement_roll=4, placements_left=1)
    assert moves_of(s) == {"place 8,6", "pass"}


def test_stack_on_top_rules() -> None:
    base = {(2, 2): 1, (3, 3): 2, (5, 5): 1}
    s = position(phase="place", placement_roll=5, placements_left=1, cubes=base, chars={"red": (5, 5)})
    with pytest.raises(IllegalMoveError, match="character stands"):
        s.apply(M("stack 5,5"))
    with pytest.raises(IllegalMoveError, match="more than two cubes"):
        s.apply(M("stack 3,3"))
    with pytest.raises(IllegalMoveError, match="royal tower"):
        s.apply(M("stack 0,3"))
    with pytest.raises(IllegalMoveError, match="no cube at 6,6"):
        s.apply(M("stack 6,6"))
    with pytest.raises(IllegalMoveError, match="taken"):
        s.apply(M("place 2,2"))  # flat placement never on another cube
    s4 = position(phase="place", placement_roll=4, placements_left=1, cubes=base)
    with pytest.raises(IllegalMoveError, match="only with a roll of 5"):
        s4.apply(M("stack 2,2"))


# --------------------------------------------------------------------------- movement


def test_cube_costs_one_point_per_square_and_may_turn() -> None:
    s = position(roll=3, cubes={(3, 2): 1})
    s = play(s, "cube 3,2 N", "cube 3,3 W")  # "cambiando de dirección"
    assert s.stacks.get((2, 3)) == 1 and s.points == 1
    with pytest.raises(IllegalMoveError, match="off the board"):
        position(cubes={(3, 0): 1}).apply(M("cube 3,0 S"))


def test_no_diagonal_moves_exist() -> None:
    with pytest.raises(InvalidMoveError):
        Move.parse("cube 3,3 NE")


def test_rulebook_five_point_example_two_cubes() -> None:
    # "hacen falta 5 puntos para mover los cubos como se indica: 3 puntos para el cubo 1, y 2 ..."
    s = position(to_move="red", roll=5, cubes={(2, 1): 1, (6, 5): 1})
    s = play(s, "cube 2,1 E", "cube 3,1 E", "cube 4,1 N", "cube 6,5 S")
    assert s.points == 1 and s.to_move == "red"
    s = s.apply(M("cube 6,4 S"))
    assert s.stacks.get((4, 2)) == 1 and s.stacks.get((6, 3)) == 1
    assert s.to_move == "blue" and s.phase == "place_roll"  # all points used: next player


def test_rulebook_six_point_example() -> None:
    # Paso 2: 1 point for cube 1; Paso 3: 2 points for the character; Paso 4: 3 points for cube 2
    s = position(roll=6, cubes={(1, 3): 1, (2, 2): 1, (5, 5): 1})
    s = s.apply(M("cube 2,2 N"))
    assert s.points == 5
    s = play(s, "char 0,3 E", "char 1,3 E")
    assert s.chars["blue"] == (2, 3) and s.points == 3
    s = play(s, "cube 5,5 W", "cube 4,5 W", "cube 3,5 S")
    assert s.stacks.get((3, 4)) == 1 and s.to_move == "red"


def test_pieces_never_move_onto_a_cube_or_into_zone_a() -> None:
    s = position(cubes={(3, 3): 1, (3, 4): 1, (2, 2): 2})
    assert "cube 3,3 N" not in moves_of(s) and "cube 3,3 E" not in moves_of(s)  # cube / zone A
    with pytest.raises(IllegalMoveError, match="never moves onto another cube"):
        s.apply(M("cube 3,3 N"))  # fig. 13
    with pytest.raises(IllegalMoveError, match="zone A"):
        s.apply(M("cube 3,3 E"))  # fig. 12
    t = position(cubes={(2, 2): 2, (2, 1): 1})
    with pytest.raises(IllegalMoveError, match="never moves onto another cube"):
        t.apply(M("lower 2,2 S"))  # fig. 14: the top cube never onto another cube


def test_tower_costs_three_and_leftover_points_move_other_pieces() -> None:
    # "si obtienes 5 puntos ... podrás mover una torre (coste 3 puntos) y usar los 2 puntos restantes"
    s = position(roll=5, cubes={(3, 4): 2, (6, 6): 1})
    s = s.apply(M("tower 3,4 N"))
    assert s.stacks[(3, 5)] == 2 and (3, 4) not in s.stacks and s.points == 2
    assert not any(m.startswith(("tower", "lower")) for m in moves_of(s))
    s = play(s, "cube 6,6 W", "cube 5,6 W")
    assert s.to_move == "red"
    assert "tower 3,4 N" not in moves_of(position(roll=2, cubes={(3, 4): 2}))


def test_lowering_the_top_cube_costs_five() -> None:
    s = position(roll=6, cubes={(3, 4): 2})
    s = s.apply(M("lower 3,4 W"))
    assert s.stacks[(3, 4)] == 1 and s.stacks[(2, 4)] == 1 and s.points == 1
    assert "lower 3,4 W" not in moves_of(position(roll=4, cubes={(3, 4): 2}))
    with pytest.raises(IllegalMoveError, match="costs 5 points and only 4"):
        position(roll=4, cubes={(3, 4): 2}).apply(M("lower 3,4 W"))


def test_character_moves_only_over_cubes_one_point() -> None:
    s = position(roll=6, cubes={(1, 3): 1, (2, 3): 1}, chars={"blue": (1, 3)})
    s = s.apply(M("char 1,3 E"))
    assert s.chars["blue"] == (2, 3) and s.points == 5
    with pytest.raises(IllegalMoveError, match="never touch the board"):
        s.apply(M("char 2,3 N"))
    assert "char 2,3 N" not in moves_of(s)


def test_character_climbs_a_tower_for_three_and_descends_for_one() -> None:
    s = position(roll=6, cubes={(1, 3): 1, (2, 3): 2, (3, 3): 2, (3, 2): 1}, chars={"blue": (1, 3)})
    s = s.apply(M("char 1,3 E"))  # climbing a two-cube tower: 3 points (fig. 18)
    assert s.points == 3
    s = s.apply(M("char 2,3 E"))  # tower to tower, same level: 1 point
    assert s.points == 2
    s = s.apply(M("char 3,3 S"))  # descending: 1 point
    assert s.points == 1 and s.chars["blue"] == (3, 2)
    s2 = position(roll=2, cubes={(1, 3): 1, (2, 3): 2}, chars={"blue": (1, 3)})
    assert "char 1,3 E" not in moves_of(s2)


def test_leaving_the_own_royal_tower_costs_one() -> None:
    # "Bajar la ficha de personaje de la torre real, hacia una casilla contigua, solo cuesta 1 punto."
    s = position(roll=1, cubes={(1, 3): 1})
    s = s.apply(M("char 0,3 E"))
    assert s.chars["blue"] == (1, 3) and s.to_move == "red"


def test_two_characters_may_share_a_cube() -> None:
    s = position(roll=1, cubes={(4, 4): 1, (5, 4): 1}, chars={"blue": (4, 4), "red": (5, 4)})
    s = s.apply(M("char 4,4 E"))
    assert s.chars == {"blue": (5, 4), "red": (5, 4)}
    assert validate_state(s.to_json()) == []


def test_what_may_not_be_moved() -> None:
    s = position(
        roll=6,
        cubes={(4, 4): 1, (5, 5): 2, (6, 6): 1},
        chars={"blue": (4, 4), "red": (5, 5)},
    )
    legal = moves_of(s)
    # a cube with a character on it, even your own ("aunque sea la tuya")
    assert not any(m.startswith(("cube 4,4", "tower 5,5", "lower 5,5")) for m in legal)
    with pytest.raises(IllegalMoveError, match="character on it"):
        s.apply(M("cube 4,4 N"))
    # another player's character
    with pytest.raises(IllegalMoveError, match="another player's character"):
        s.apply(M("char 5,5 W"))
    # another player's royal tower, by any name
    for text in ("royal 9,3 N", "tower 9,3 W", "lower 9,3 W"):
        with pytest.raises(IllegalMoveError, match="another player's royal tower"):
            s.apply(M(text))
    # any other cube may be moved, whoever placed it
    assert "cube 6,6 W" in legal


# --------------------------------------------------------------------------- royal tower


def test_royal_tower_moves_sideways_for_one_point_along_the_paved_edge() -> None:
    s = position(roll=6, cubes={(1, 3): 1}, chars={"blue": (1, 3)})
    assert {m for m in moves_of(s) if m.startswith("royal")} == {"royal 0,3 N", "royal 0,3 S"}
    s = play(s, "royal 0,3 S", "royal 0,2 S", "royal 0,1 S")
    assert s.royal["blue"] == (0, 0) and s.stacks[(0, 0)] == 2 and s.points == 3
    with pytest.raises(IllegalMoveError, match="off the board"):
        s.apply(M("royal 0,0 S"))
    with pytest.raises(IllegalMoveError, match="only from side to side"):
        s.apply(M("royal 0,0 E"))
    s = play(s, "royal 0,0 N", "royal 0,1 N", "royal 0,2 N")
    assert s.royal["blue"] == (0, 3) and s.to_move == "red"


def test_royal_tower_cannot_move_with_a_character_on_it_or_onto_a_cube() -> None:
    s = position(roll=6)  # blue's character still stands on its royal tower
    with pytest.raises(IllegalMoveError, match="character on it"):
        s.apply(M("royal 0,3 N"))
    t = position(roll=6, cubes={(1, 3): 1, (0, 4): 1}, chars={"blue": (1, 3)})
    assert "royal 0,3 N" not in moves_of(t)
    with pytest.raises(IllegalMoveError, match="taken"):
        t.apply(M("royal 0,3 N"))
    with pytest.raises(IllegalMoveError, match="top cube stays with the flag"):
        t.apply(M("lower 0,3 S"))  # "No puedes bajar el cubo superior de una torre real"


def test_more_players_royal_tower_only_up_to_the_shared_central_square() -> None:
    s = position(4, roll=6, cubes={(1, 0): 1}, chars={"blue": (1, 0)})
    s = play(s, "royal 0,0 N", "royal 0,1 N", "royal 0,2 N")
    assert s.royal["blue"] == (0, 3)
    with pytest.raises(IllegalMoveError, match="between its corner and y=3"):
        s.apply(M("royal 0,3 N"))
    # yellow (north-west corner) shares the central square (0, 3): not while blue is there
    y = position(
        4,
        to_move="yellow",
        roll=6,
        royal={"blue": (0, 3), "red": (9, 0), "green": (9, 6), "yellow": (0, 4)},
        cubes={(1, 4): 1, (1, 3): 1},
        chars={"yellow": (1, 4), "blue": (1, 3)},
    )
    assert {m for m in moves_of(y) if m.startswith("royal")} == {"royal 0,4 N"}


# --------------------------------------------------------------------------- capturing a flag


def test_capture_needs_a_single_roll_of_four_to_six_from_an_adjacent_square() -> None:
    cubes = {(8, 3): 1, (7, 3): 1, (6, 3): 1}
    for roll in (1, 2, 3):
        s = position(roll=roll, cubes=cubes, chars={"blue": (8, 3)})
        assert "char 8,3 E" not in moves_of(s)
        with pytest.raises(IllegalMoveError, match="single roll of 4, 5 or 6"):
            s.apply(M("char 8,3 E"))
    for roll in (4, 5, 6):
        s = position(roll=roll, cubes=cubes, chars={"blue": (8, 3)})
        assert "char 8,3 E" in moves_of(s)
        s = s.apply(M("char 8,3 E"))
        assert s.is_terminal() and s.winners() == ["blue"]
        assert s.returns() == {"blue": 1.0, "red": 0.0}
        assert s.captures == (Capture("blue", "red", 5),)
        assert "red" not in s.royal and s.stacks[(9, 3)] == 2


def test_capture_even_with_the_owner_standing_on_the_tower() -> None:
    # red's character never left its royal tower; two characters may share a cube (fig. 19)
    s = position(roll=4, cubes={(8, 3): 1}, chars={"blue": (8, 3), "red": (9, 3)})
    s = s.apply(M("char 8,3 E"))
    assert s.winners() == ["blue"] and s.chars == {"blue": (9, 3), "red": (9, 3)}


def test_capture_cannot_use_points_left_over_in_the_same_turn() -> None:
    # "si ... obtiene 6 puntos, no puede usar 2 puntos para mover el personaje y luego subir con los 4"
    s = position(roll=6, cubes={(8, 3): 1, (7, 3): 1, (6, 3): 1}, chars={"blue": (6, 3)})
    s = play(s, "char 6,3 E", "char 7,3 E")
    assert s.points == 4
    assert "char 8,3 E" not in moves_of(s)
    with pytest.raises(IllegalMoveError, match="already spent"):
        s.apply(M("char 8,3 E"))


def test_capture_from_an_adjacent_two_cube_tower() -> None:
    # fig. 23: the same rule from a tower next to the royal tower
    s = position(roll=5, cubes={(9, 4): 2}, chars={"blue": (9, 4)})
    assert s.apply(M("char 9,4 S")).winners() == ["blue"]
    assert "char 9,4 S" not in moves_of(position(roll=3, cubes={(9, 4): 2}, chars={"blue": (9, 4)}))


def test_more_players_capture_keeps_the_game_going_and_the_tower_becomes_plain() -> None:
    s = position(4, roll=6, cubes={(8, 0): 1, (7, 0): 1}, chars={"blue": (8, 0)})
    s = s.apply(M("char 8,0 E"))  # blue captures red's flag with a 6: the whole roll is used
    # red, who just lost its flag, still plays the next turn ("podrás seguir jugando")
    assert not s.is_terminal() and s.to_move == "red" and s.phase == "place_roll"
    assert s.royal == {"blue": (0, 0), "green": (9, 6), "yellow": (0, 6)}
    assert s.scores() == {"blue": 3, "red": 0, "green": 1, "yellow": 1}
    # red lost its flag but keeps playing; its old royal tower is a plain tower now
    t = position(
        4,
        to_move="red",
        roll=6,
        royal={"blue": (0, 0), "green": (9, 6), "yellow": (0, 6)},
        cubes={(9, 0): 2, (8, 0): 1, (8, 1): 1},
        chars={"blue": (8, 1), "red": (8, 0)},
        captures=[Capture("blue", "red", 3)],
    )
    legal = moves_of(t)
    assert "tower 9,0 N" in legal and "lower 9,0 N" in legal and not any(m.startswith("royal") for m in legal)
    assert "char 8,0 E" in legal  # climbing a plain tower: 3 points, no capture
    u = t.apply(M("char 8,0 E"))
    assert u.points == 3 and u.captures == t.captures


def test_end_scores_and_tie_break_for_more_than_two_players() -> None:
    # red took blue's flag on turn 4; blue (still playing) now takes red's: green's is the last flag.
    s = position(
        3,
        roll=4,
        royal={"red": (9, 0), "green": (9, 6)},
        cubes={(0, 0): 2, (8, 0): 1},
        chars={"blue": (8, 0), "red": (0, 0), "green": (9, 6)},
        captures=[Capture("red", "blue", 4)],
        turn=9,
    )
    s = s.apply(M("char 8,0 E"))
    assert s.is_terminal()
    # 2 points per captured flag, 1 for the flag kept to the end
    assert s.scores() == {"blue": 2, "red": 2, "green": 1}
    # tie: red captured a flag first
    assert s.winners() == ["red"]
    assert s.returns() == {"blue": 0.0, "red": 1.0, "green": 0.0}


def test_keeping_the_flag_counts_one_point() -> None:
    # blue keeps its flag and takes the last other flag: 2 + 1
    s = position(
        3,
        roll=6,
        royal={"blue": (0, 0), "green": (9, 6)},
        cubes={(9, 0): 2, (9, 5): 1},
        chars={"blue": (9, 5), "red": (3, 3), "green": (9, 0)},
        captures=[Capture("green", "red", 2)],
    )
    s = s.apply(M("char 9,5 N"))
    assert s.is_terminal() and s.scores() == {"blue": 3, "red": 0, "green": 2} and s.winners() == ["blue"]


# --------------------------------------------------------------------------- turns


def test_turns_pass_in_seat_order_and_end_keeps_nothing() -> None:
    s = position(4, roll=3)
    s = s.apply(M("end"))
    assert s.to_move == "red" and s.turn == 6 and s.points == 0 and s.phase == "place_roll"
    for expected in ("green", "yellow", "blue"):
        s = play(s, "place:1", "move:1", "end")
        assert s.to_move == expected


def test_turn_limit_stops_the_game_as_a_draw() -> None:
    s = new_state(2, first="blue", max_turns=1)
    s = play(s, "place:2", "move:3", "end")
    assert s.is_terminal() and s.stopped and s.returns() == {"blue": 0.5, "red": 0.5}


def test_nothing_happens_after_the_end() -> None:
    s = position(roll=4, cubes={(8, 3): 1}, chars={"blue": (8, 3)}).apply(M("char 8,3 E"))
    assert s.legal_moves() == [] and not s.is_chance_node()
    with pytest.raises(IllegalMoveError, match="over"):
        s.apply(M("end"))
