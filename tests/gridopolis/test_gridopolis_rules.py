"""A hand-worked example for every Gridopolis rule (docs/rules/gridopolis.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core import IllegalMoveError, InvalidMoveError
from engine.gridopolis import (
    DIRECTIONS,
    AddPad,
    EndTurn,
    Jump,
    Marker,
    Move,
    Pad,
    Pass,
    PlaceBlocker,
    State,
    Step,
    new_state,
    validate_state,
)

Builder = Callable[..., State]

P = Pad.parse


def moves_from(state, pad: str) -> set[str]:
    return {str(m) for m in state.legal_moves() if getattr(m, "frm", None) == P(pad)}


# ---------------------------------------------------------------- set-up ("Configuración para Matrix")
@pytest.mark.parametrize(("players", "pads"), [(2, 39), (3, 45), (4, 51)])
def test_matrix_setup_counts(players: int, pads: int) -> None:
    s = new_state(players)
    assert len(s.pads) == pads  # 27-pad core + a 6-pad arm per player
    assert len(s.posts) == 8  # four support posts under each of levels 1 and 2
    assert len(s.hyper_pads) == 5  # "cinco en total"
    assert s.levels() == [0, 1, 2]  # "Construya tres niveles"
    assert len(s.kingerizers) == 3 * players
    assert len(s.markers) == 3 * players
    for p in s.players:
        assert set(s.markers_of(p.name)) == set(s.start_row(p.name))
        assert (p.blockers, p.pads, p.posts, p.captured) == (2, 3, 2, 0)
    assert validate_state(s.to_json()) == []
    assert s.current_player() == "green"


def test_three_player_turn_order_and_links() -> None:
    s = new_state(3)
    assert s.player_names == ("green", "red", "blue")
    assert [p.forward for p in s.players] == ["+y", "+x", "-y"]
    # 36 links in the core + 10 per arm (7 inside, 3 joining it to the core)
    assert len(s.links()) == 36 + 3 * 10


def test_initial_move_count_is_hand_counted() -> None:
    # 7 pawn steps (2 + 3 + 2), 28 open pads for a blocker box (39 - 6 kingerizers - 5 hyper-pads),
    # 44 horizontal pad additions (20 around level 0, 12 around each of levels 1 and 2) and
    # 21 on a post (9 above level 2, 12 above the arms).
    s = new_state(2)
    kinds: dict[str, int] = {}
    for m in s.legal_moves():
        key = type(m).__name__ + ("+post" if isinstance(m, AddPad) and m.post else "")
        kinds[key] = kinds.get(key, 0) + 1
    assert kinds == {"Step": 7, "PlaceBlocker": 28, "AddPad": 44, "AddPad+post": 21}


# ---------------------------------------------------------------- pawn moves ("Moviente")
def test_pawn_steps_forward_sideways_and_between_levels(position: Builder) -> None:
    s = position({"3,1,0": "g", "3,5,0": "b"})
    assert moves_from(s, "3,1,0") == {
        "3,1,0-2,1,0",
        "3,1,0-4,1,0",  # sideways (not on the start row)
        "3,1,0-2,2,0",
        "3,1,0-3,2,0",
        "3,1,0-4,2,0",  # forward
        "3,1,0-2,2,1",
        "3,1,0-3,2,1",
        "3,1,0-4,2,1",  # forward and up a level (diagonals)
    }


def test_pawn_never_moves_back(position: Builder) -> None:
    s = position({"3,1,0": "g", "3,5,0": "b"})
    with pytest.raises(IllegalMoveError, match="never move back"):
        s.apply(Move.parse("3,1,0-3,0,0"))
    t = position({"3,5,0": "b", "3,1,0": "g"}, to_move="blue")
    assert "3,5,0-3,4,0" in moves_from(t, "3,5,0")  # blue's forward is -y
    assert "3,5,0-3,6,0" not in moves_from(t, "3,5,0")


def test_pawn_may_not_slide_along_its_start_row(position: Builder) -> None:
    s = position({"2,0,0": "g", "3,5,0": "b"})
    with pytest.raises(IllegalMoveError, match="sideways along it"):
        s.apply("2,0,0-3,0,0")
    assert moves_from(s, "2,0,0") == {"2,0,0-2,1,0", "2,0,0-3,1,0"}


def test_level_to_level_downward_is_allowed(position: Builder) -> None:
    s = position({"3,3,2": "g", "3,5,0": "b"})
    assert "3,3,2-3,4,1" in moves_from(s, "3,3,2")
    assert "3,3,2-3,3,1>2,2,2" in moves_from(s, "3,3,2")  # straight down onto the hyper-pad
    assert "3,3,2-3,2,1" not in moves_from(s, "3,3,2")  # back


def test_pawn_jumps_own_markers_in_a_straight_line(position: Builder) -> None:
    s = position({"3,0,0": "g", "3,1,0": "g", "3,3,0": "g", "3,5,0": "b"})
    mine = moves_from(s, "3,0,0")
    assert "3,0,0~3,2,0" in mine
    assert "3,0,0~3,2,0~3,4,0" in mine  # several markers in one move
    after = s.apply("3,0,0~3,2,0~3,4,0")
    assert after.markers[P("3,4,0")] == Marker("green")
    assert P("3,0,0") not in after.markers and len(after.markers) == 4  # nobody captured
    # a jump across levels is straight too: 3,1,0 over 3,2,1 to 3,3,2
    t = position({"3,1,0": "g", "3,2,1": "g", "3,5,0": "b"})
    assert "3,1,0~3,3,2" in moves_from(t, "3,1,0")


def test_a_jump_is_straight_or_it_is_not_a_jump() -> None:
    with pytest.raises(InvalidMoveError, match="not a straight jump"):
        Move.parse("3,2,0x4,5,0")


# ------------------------------------------------------- captures ("Saltar 101/102", "Salto múltiple")
def test_capture_by_straight_jump_onto_an_empty_pad(position: Builder) -> None:
    s = position({"3,2,0": "g", "3,3,0": "b", "2,5,0": "b"})
    after = s.apply("3,2,0x3,4,0")
    assert P("3,3,0") not in after.markers
    assert after.markers[P("3,4,0")] == Marker("green")
    assert after.player("green").captured == 1
    blocked = position({"3,2,0": "g", "3,3,0": "b", "3,4,0": "b"})
    with pytest.raises(IllegalMoveError, match="occupied"):
        blocked.apply("3,2,0x3,4,0")


def test_capture_diagonally_across_levels(position: Builder) -> None:
    s = position({"2,2,0": "g", "3,3,1": "b", "2,5,0": "b"})
    # 2,2,0 over 3,3,1 lands on 4,4,2, a hyper-pad: the chain ends and the marker transmits
    caps = {m for m in moves_from(s, "2,2,0") if "x" in m}
    assert caps == {"2,2,0x4,4,2>2,2,2", "2,2,0x4,4,2>2,4,2", "2,2,0x4,4,2>4,2,2"}


def test_multi_jump_changes_direction_and_crowns(position: Builder) -> None:
    s = position({"2,2,0": "g", "3,3,0": "b", "4,5,0": "b", "2,6,0": "b"})
    assert "2,2,0x4,4,0x4,6,0" in moves_from(s, "2,2,0")
    assert "2,2,0x4,4,0" in moves_from(s, "2,2,0")  # stopping early is allowed
    after = s.apply("2,2,0x4,4,0x4,6,0")
    assert after.markers[P("4,6,0")] == Marker("green", king=True)  # landed on blue's start row
    assert after.player("green").captured == 2
    assert after.current_player() == "blue"  # a freshly crowned pawn gets no second move


def test_pawns_never_capture_backwards_kings_do(position: Builder) -> None:
    s = position({"3,4,0": "g", "3,3,0": "b", "2,6,0": "b"})
    assert "3,4,0x3,2,0" not in moves_from(s, "3,4,0")
    k = position({"3,4,0": "G", "3,3,0": "b", "2,6,0": "b"})
    assert "3,4,0x3,2,0" in moves_from(k, "3,4,0")


def test_own_jumps_and_captures_never_mix(position: Builder) -> None:
    s = position({"3,1,0": "g", "3,2,0": "g", "3,4,0": "b"})
    assert "3,1,0~3,3,0" in moves_from(s, "3,1,0")
    assert not any(
        m.startswith("3,1,0~3,3,0") and len(m) > len("3,1,0~3,3,0") for m in moves_from(s, "3,1,0")
    )
    with pytest.raises(InvalidMoveError, match="never both"):
        Move.parse("3,1,0~3,3,0x3,5,0")
    with pytest.raises(IllegalMoveError, match="never mix"):
        s.apply(Jump((P("3,1,0"), P("3,3,0"), P("3,5,0")), capture=True))


# ---------------------------------------------------------------- kings
def test_pawn_landing_on_an_opponent_start_row_is_crowned(position: Builder) -> None:
    s = position({"3,5,0": "g", "2,2,0": "b"})
    after = s.apply("3,5,0-3,6,0")
    assert after.markers[P("3,6,0")].king
    assert after.current_player() == "blue"


def test_king_moves_any_direction_with_an_optional_second_move(position: Builder) -> None:
    s = position({"3,3,0": "G", "2,6,0": "b", "4,1,0": "g"})
    assert "3,3,0-3,2,0" in moves_from(s, "3,3,0")  # back is fine for a king
    mid = s.apply("3,3,0-3,2,0")
    assert mid.current_player() == "green" and mid.king_move == P("3,2,0")
    assert EndTurn() in mid.legal_moves()
    assert all(isinstance(m, EndTurn) or m.frm == P("3,2,0") for m in mid.legal_moves())  # type: ignore[attr-defined]
    with pytest.raises(IllegalMoveError, match="second move"):
        mid.apply("4,1,0-4,2,0")  # the second move is the king's
    two = mid.apply("3,2,0-3,1,0")
    assert two.current_player() == "blue" and two.turns == 1
    skipped = mid.apply("end")
    assert skipped.current_player() == "blue" and skipped.markers[P("3,2,0")].king
    with pytest.raises(IllegalMoveError, match="no king has moved"):
        skipped.apply("end")


# ---------------------------------------------------------------- hyper-pads
def test_hyper_pad_transmission_is_compulsory_and_of_the_movers_choice(position: Builder) -> None:
    s = position({"3,2,0": "g", "2,6,0": "b"})
    onto = {m for m in moves_from(s, "3,2,0") if m.startswith("3,2,0-3,3,1")}
    assert onto == {f"3,2,0-3,3,1>{h}" for h in ("2,2,2", "4,2,2", "2,4,2", "4,4,2")}
    with pytest.raises(IllegalMoveError, match="must transmit"):
        s.apply("3,2,0-3,3,1")
    after = s.apply("3,2,0-3,3,1>4,4,2")
    assert after.markers[P("4,4,2")] == Marker("green") and P("3,3,1") not in after.markers
    assert after.current_player() == "blue"  # the trip is not an extra move


def test_hyper_pad_stays_when_all_others_are_occupied(position: Builder) -> None:
    s = position({"3,2,0": "g", "2,2,2": "b", "4,2,2": "b", "2,4,2": "g", "4,4,2": "b"})
    assert {m for m in moves_from(s, "3,2,0") if m.startswith("3,2,0-3,3,1")} == {"3,2,0-3,3,1"}
    with pytest.raises(IllegalMoveError, match="not another open hyper-pad"):
        s.apply("3,2,0-3,3,1>2,2,2")


def test_transmitted_pawns_may_land_behind(position: Builder) -> None:
    s = position({"3,4,1": "g", "2,6,0": "b"})
    # 3,4,1 -> 2,4,2 is sideways and up; the transmission to 2,2,2 goes back toward green's row
    assert "3,4,1-2,4,2>2,2,2" in moves_from(s, "3,4,1")


# ---------------------------------------------------------------- blocker boxes
def test_blocker_box_takes_an_open_pad_out_of_play(position: Builder) -> None:
    s = position({"3,2,0": "g", "2,6,0": "b"})
    after = s.apply("block 3,3,0")
    assert after.blockers == {P("3,3,0"): "green"} and after.player("green").blockers == 1
    assert after.current_player() == "blue"  # instead of a move
    back = replace(after, to_move=0)
    assert "3,2,0-3,3,0" not in moves_from(back, "3,2,0")
    with pytest.raises(IllegalMoveError, match="kingerizer"):
        s.apply("block 2,0,0")
    with pytest.raises(IllegalMoveError, match="hyper-pad"):
        s.apply("block 3,3,1")
    with pytest.raises(IllegalMoveError, match="occupied"):
        s.apply("block 3,2,0")
    spent = replace(s, players=(replace(s.players[0], blockers=0), s.players[1]))
    with pytest.raises(IllegalMoveError, match="both blocker boxes"):
        spent.apply(PlaceBlocker(P("3,4,0")))


# ---------------------------------------------------------------- adding a pad
def test_add_a_pad_horizontally_or_on_a_post(position: Builder) -> None:
    s = position({"4,3,0": "g", "2,6,0": "b"})
    side = s.apply("add 5,3,0")
    assert P("5,3,0") in side.pads and side.player("green").pads == 2 and side.player("green").posts == 2
    assert "4,3,0-5,3,0" in moves_from(replace(side, to_move=0), "4,3,0")  # the new pad is playable
    up = s.apply("add 3,3,3 post")
    assert P("3,3,3") in up.pads and P("3,3,3") in up.posts and up.player("green").posts == 1
    with pytest.raises(IllegalMoveError, match="already a pad"):
        s.apply("add 3,3,2")
    with pytest.raises(IllegalMoveError, match="not be linked"):
        s.apply("add 9,9,0")
    with pytest.raises(IllegalMoveError, match="directly above"):
        s.apply("add 1,1,1 post")
    none_left = replace(s, players=(replace(s.players[0], pads=3, posts=0), s.players[1]))
    with pytest.raises(IllegalMoveError, match="both spare posts"):
        none_left.apply(AddPad(P("3,3,3"), post=True))


# ---------------------------------------------------------------- kamikaze
def test_kamikaze_on_the_same_level_removes_both_and_gives_points(position: Builder) -> None:
    s = position({"3,4,0": "g", "4,5,0": "b", "2,6,0": "b", "3,1,0": "g"})
    assert "3,4,0*4,5,0" in moves_from(s, "3,4,0")  # 5,6,0 is off the grid-set
    after = s.apply("3,4,0*4,5,0")
    assert P("3,4,0") not in after.markers and P("4,5,0") not in after.markers
    assert after.player("green").captured == 1 and after.player("blue").captured == 1
    assert after.points("green") == 2 and after.points("blue") == 2
    # landing pad on the grid: capture, not kamikaze
    on_grid = position({"3,4,0": "g", "3,5,0": "b"})
    with pytest.raises(IllegalMoveError, match="capture instead"):
        on_grid.apply("3,4,0*3,5,0")
    # only on the same level
    with pytest.raises(InvalidMoveError, match="same level"):
        Move.parse("3,3,1*3,4,2")


def test_kamikaze_onto_a_blocked_pad(position: Builder) -> None:
    s = position({"3,4,0": "g", "3,5,0": "b", "2,2,0": "b"}, blockers={P("3,6,0"): "blue"})
    assert "3,4,0*3,5,0" in moves_from(s, "3,4,0")
    assert "3,4,0x3,6,0" not in moves_from(s, "3,4,0")


# ---------------------------------------------------------------- endings
def test_last_marker_standing_wins(position: Builder) -> None:
    s = position({"3,2,0": "g", "3,3,0": "b"})
    end = s.apply("3,2,0x3,4,0")
    assert end.is_terminal() and end.ending() == "last-marker"
    assert end.current_player() is None and end.legal_moves() == ()
    assert end.returns() == {"green": 1.0, "blue": 0.0}
    with pytest.raises(IllegalMoveError, match="game is over"):
        end.apply("3,4,0-3,5,0")


def test_kamikaze_of_the_last_two_markers_is_scored_by_points(position: Builder) -> None:
    s = position({"3,4,0": "g", "4,5,0": "b"})
    end = s.apply("3,4,0*4,5,0")
    assert end.is_terminal() and end.returns() == {"green": 0.5, "blue": 0.5}


def test_timed_game_gives_equal_turns_and_counts_points() -> None:
    s = new_state(2, turn_limit=1)
    s = s.apply("3,0,0-3,1,0")
    assert not s.is_terminal()  # blue has not had its turn yet
    s = s.apply("block 3,3,0")
    assert s.is_terminal() and s.ending() == "turn-limit"
    assert s.returns() == {"green": 0.5, "blue": 0.5}


def test_timed_game_counts_captures(position: Builder) -> None:
    s = position({"3,2,0": "g", "3,3,0": "b", "2,6,0": "b", "4,6,0": "b"}, turn_limit=1)
    s = s.apply("3,2,0x3,4,0").apply("2,6,0-2,5,0")
    assert s.ending() == "turn-limit"
    assert (s.points("green"), s.points("blue")) == (2, 2)
    assert s.returns() == {"green": 0.5, "blue": 0.5}


def test_pass_only_without_moves_and_all_passing_ends(position: Builder) -> None:
    s = position({"2,6,0": "g", "3,6,0": "g", "4,6,0": "g", "2,0,0": "b", "3,0,0": "b", "4,0,0": "b"})
    empty = tuple(replace(p, blockers=0, pads=0) for p in s.players)
    s = replace(s, players=empty)
    assert list(s.legal_moves()) == [Pass()]
    s = s.apply("pass")
    assert list(s.legal_moves()) == [Pass()] and not s.is_terminal()
    s = s.apply("pass")
    assert s.ending() == "no-moves" and s.returns() == {"green": 0.5, "blue": 0.5}
    with pytest.raises(IllegalMoveError, match="no other move"):
        new_state(2).apply("pass")


def test_eliminated_players_are_skipped(position: Builder) -> None:
    s = position({"3,2,0": "g", "0,3,0": "r", "3,3,0": "r", "2,6,0": "b"}, players=3)
    s = s.apply("3,2,0x3,4,0")  # green takes a red marker; red still has one
    assert s.current_player() == "red"
    s = position({"3,2,0": "g", "3,3,0": "r", "2,6,0": "b"}, players=3).apply("3,2,0x3,4,0")
    assert s.current_player() == "blue"  # red is out
    assert not s.is_terminal()


# ---------------------------------------------------------------- moves as values
@pytest.mark.parametrize(
    "text",
    [
        "3,1,0-3,2,0",
        "3,2,0-3,3,1>2,2,2",
        "3,0,0~3,2,0~3,4,0",
        "2,2,0x4,4,0x4,6,0",
        "2,2,0x4,4,2>2,4,2",
        "3,4,0*4,5,0",
        "block 3,3,0",
        "add 5,3,0",
        "add 3,3,3 post",
        "end",
        "pass",
        "-1,0,0--2,0,0",
    ],
)
def test_move_parse_str_repr_round_trip(text: str) -> None:
    m = Move.parse(text)
    assert str(m) == text
    assert eval(repr(m), {"Move": Move}) == m  # paste-able
    assert Move.parse(f"  {text.upper()}  ") == m


@pytest.mark.parametrize(
    "text",
    ["", "hello", "3,1-3,2,0", "3,1,0-3,3,0", "add 3,3,-1", "block", "3,1,0x", "3,1,0-3,1,0", "3,2,0*3,4,0"],
)
def test_malformed_moves_raise_invalid_move_error(text: str) -> None:
    with pytest.raises(InvalidMoveError) as err:
        Move.parse(text)
    assert repr(text) in str(err.value)


def test_subclass_parse_checks_the_kind() -> None:
    assert Step.parse("3,1,0-3,2,0") == Step(P("3,1,0"), P("3,2,0"))
    with pytest.raises(InvalidMoveError, match="not a Step"):
        Step.parse("block 3,3,0")


def test_pad_parse() -> None:
    assert P(" 3, 1 ,0 ") == Pad(3, 1, 0)
    assert eval(repr(Pad(3, 1, 0)), {"Pad": Pad}) == Pad(3, 1, 0)
    with pytest.raises(InvalidMoveError, match=r"'3,1'"):
        P("3,1")


def test_crowned_on_any_opponents_start_row(position: Builder) -> None:
    # four players: green moving sideways along the west arm reaches red's start row
    s = position({"1,3,0": "g", "5,3,0": "y", "3,5,0": "b", "3,1,0": "r"}, players=4)
    after = s.apply("1,3,0-0,3,0")
    assert after.markers[P("0,3,0")] == Marker("green", king=True)


def test_one_chain_may_capture_several_opponents(position: Builder) -> None:
    s = position({"3,2,0": "g", "3,3,0": "r", "3,5,0": "b", "0,3,0": "r", "2,6,0": "b"}, players=3)
    assert "3,2,0x3,4,0x3,6,0" in moves_from(s, "3,2,0")
    after = s.apply("3,2,0x3,4,0x3,6,0")
    assert after.player("green").captured == 2
    assert after.markers[P("3,6,0")].king


def test_kamikaze_points_go_to_the_victims_owner_in_a_three_player_game(position: Builder) -> None:
    s = position({"3,4,0": "g", "4,5,0": "b", "0,3,0": "r", "2,6,0": "b", "3,1,0": "g"}, players=3)
    after = s.apply("3,4,0*4,5,0")
    assert [p.captured for p in after.players] == [1, 0, 1]  # green, red, blue
    assert after.current_player() == "red"


def test_no_progress_ending_after_fifty_quiet_turns_per_player(position: Builder) -> None:
    # two kings that can never reach each other would wander for ever: after 50 turns per player
    # without a capture, kamikaze, crowning, blocker box or added pad, points decide
    s = position({"3,3,0": "G", "3,3,2": "B"}, quiet_turns=99)
    s = replace(s, players=tuple(replace(p, blockers=0, pads=0, captured=2) for p in s.players))
    after = s.apply("3,3,0-3,2,0").apply("end")
    assert after.quiet_turns == 100 and after.ending() == "no-progress"
    assert after.returns() == {"green": 0.5, "blue": 0.5}
    # a capture, a blocker box or a crowning resets the count
    busy = position({"3,2,0": "g", "3,3,0": "b", "2,6,0": "b"}, quiet_turns=99).apply("3,2,0x3,4,0")
    assert busy.quiet_turns == 1 and not busy.is_terminal()
    assert position({"3,2,0": "g", "2,6,0": "b"}, quiet_turns=99).apply("block 3,4,0").quiet_turns == 1
    assert position({"3,5,0": "g", "2,2,0": "b"}, quiet_turns=99).apply("3,5,0-3,6,0").quiet_turns == 1


coords = st.integers(-9, 99)
pads = st.builds(Pad, coords, coords, st.integers(0, 9))


@given(a=pads, d=st.sampled_from(DIRECTIONS))
def test_step_and_jump_notation_round_trips(a: Pad, d: tuple[int, int, int]) -> None:
    b = a + d
    c = Pad(b.x + d[0], b.y + d[1], b.level + d[2])
    for m in (Step(a, b), Jump((a, c), capture=True), Jump((a, c), capture=False)):
        if min(p.level for p in (a, b, c)) < 0:
            continue
        assert Move.parse(str(m)) == m
        assert eval(repr(m), {"Move": Move}) == m
