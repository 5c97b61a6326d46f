"""Rounds, hands, dealing, battery and the game interface (rulebook "Orden redonda", "Fin del juego")."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from engine.core import ChanceEvent, IllegalMoveError, InvalidStateError, random_playout
from engine.quirky import (
    Card,
    Go,
    Play,
    QuirkyMove,
    QuirkyState,
    builtin_scenario,
    builtin_scenarios,
    new_state,
    parse_move,
    shuffled,
    validate_state,
)

from .helpers import scenario

# an enclosed dust bunny: the objective cannot be met, so rounds just run down the battery
BOXED = scenario(
    ".....\n.###.\n.#.#.\n.###.\nQ....",
    tokens='[[tokens]]\nid = "d"\nkind = "dust"\nat = [2, 2]\n',
    objective='collect = ["dust"]',
)


def deal_in_order(state: QuirkyState, order: list[str]) -> QuirkyState:
    for code in order:
        state = state.apply(ChanceEvent("shuffle", code))
    return state


BASIC_ORDER = [
    "F1",
    "F2",
    "RL",
    "F1",
    "F2",
    "RL",
    "F1",
    "F2",
    "RL",
    "F1",
    "F3",
    "RR",
    "F1",
    "F3",
    "RR",
    "B1",
    "U",
    "RR",
    "U",
    "B1",
]


def test_setup_is_a_chance_node_with_exact_probabilities() -> None:
    s = new_state(BOXED, 3)
    assert s.is_chance_node() and s.current_player() is None
    outcomes = dict(s.chance_outcomes())
    assert sum(outcomes.values()) == 1
    assert outcomes[ChanceEvent("shuffle", "F1")] == Fraction(5, 20)
    assert s.table.pose == BOXED.board.start and s.battery == BOXED.battery


def test_initial_deal_goes_round_the_table() -> None:
    s = deal_in_order(new_state(BOXED, 3), BASIC_ORDER)
    assert not s.is_chance_node() and s.phase == "program" and s.current_player() == "team"
    # seat i receives deck positions i, i+3, i+6, ...
    for seat in range(3):
        assert Counter(s.hands[seat]) == Counter(Card.parse(c) for c in BASIC_ORDER[seat:18:3])
    assert [str(c) for c in s.deck] == ["U", "B1"]


def play_all(s: QuirkyState, plays: list[str]) -> QuirkyState:
    for p in plays:
        s = s.apply(parse_move(p))
    return s


def test_dealing_clarification_starts_with_fewest_cards_and_skips_full_hands() -> None:
    """Rulebook, "Repartir cartas": start with a player holding the fewest cards, clockwise, skip full
    hands."""
    s = deal_in_order(new_state(BOXED, 3), BASIC_ORDER)
    # hands: p1 F1 F1 F1 F1 F1 B1, p2 F2 F2 F2 F3 F3 U, p3 RL RL RL RR RR RR; deck U B1
    s = play_all(s, ["p1:F1", "p1:F1", "p1:F1", "p2:F2", "p3:RL", "go"])
    assert s.is_chance_node() and s.battery == BOXED.battery - 1 and s.round == 2
    before = [Counter(h) for h in s.hands]
    # the queue is shuffled to the bottom: F2, RL, F1, F1, F1 (our chosen order)
    s = deal_in_order(s, ["F2", "RL", "F1", "F1", "F1"])
    got = [Counter(h) - b for h, b in zip(s.hands, before, strict=True)]
    # p1 (3 cards, the fewest) first: U; p2: B1 (now full); p3: F2 (now full); then p1 again twice
    assert got[0] == Counter([Card("U"), Card("RL"), Card("F1")])
    assert got[1] == Counter([Card("B1")])
    assert got[2] == Counter([Card("F2")])
    assert all(len(h) == 6 for h in s.hands)
    assert [str(c) for c in s.deck] == ["F1", "F1"]


def test_dealing_starts_with_a_later_seat_when_it_has_fewest() -> None:
    s = deal_in_order(new_state(BOXED, 3), BASIC_ORDER)
    s = play_all(s, ["p1:F1", "p2:F2", "p2:F3", "p2:U", "p3:RL", "go"])
    before = [Counter(h) for h in s.hands]
    s = deal_in_order(s, ["F1", "F2", "F3", "U", "RL"])
    got = [Counter(h) - b for h, b in zip(s.hands, before, strict=True)]
    # p2 has 3 cards: p2 U, p3 B1 (full), p1 F1 (full), then p2 F2 and F3
    assert got[1] == Counter([Card("U"), Card("F2"), Card("F3")])
    assert got[2] == Counter([Card("B1")])
    assert got[0] == Counter([Card("F1")])
    assert [str(c) for c in s.deck] == ["U", "RL"]


def test_program_rules() -> None:
    s = deal_in_order(new_state(BOXED, 3), BASIC_ORDER)
    with pytest.raises(IllegalMoveError, match="has no 'U'"):
        s.apply(Play(0, Card("U")))
    s = play_all(s, ["p1:F1", "p1:F1", "p2:F2", "p2:F3"])
    assert Go() not in s.legal_moves()
    with pytest.raises(IllegalMoveError, match="at least 5"):
        s.apply(Go())
    s = s.apply(parse_move("p1:F1"))  # 5 cards, but p3 has not played
    assert not s.can_go()
    s = s.apply(parse_move("p3:RL"))
    assert s.can_go() and Go() in s.legal_moves()
    with pytest.raises(IllegalMoveError, match="no player"):
        s.apply(Play(5, Card("F1")))


def test_quirk_cards_must_be_played_first() -> None:
    scn = builtin_scenario("ballroom")
    s = shuffled(new_state(scn, 3), random.Random(4))
    seat = next(i for i, h in enumerate(s.hands) if Card("RN") in h)
    other = next((i, c) for i, h in enumerate(s.hands) for c in h if c.code != "RN")
    s2 = s.apply(Play(seat, Card("RN")))  # a quirk card before the others: fine
    s3 = s2.apply(Play(*other))
    if Card("RN") in s3.hands[seat]:
        with pytest.raises(IllegalMoveError, match="quirk card"):
            s3.apply(Play(seat, Card("RN")))
    assert all(p.card.code != "RN" for p in s3.legal_moves() if isinstance(p, Play))


def test_battery_runs_down_one_per_round_and_zero_loses() -> None:
    s = deal_in_order(new_state(BOXED, 3), BASIC_ORDER)
    rng = random.Random(0)
    rounds = 0
    while not s.is_terminal():
        s = shuffled(s, rng)
        if s.is_terminal():
            break
        hand_moves = [p for p in s.legal_moves() if isinstance(p, Play)]
        for seat in range(3):
            s = s.apply(next(p for p in hand_moves if p.seat == seat and p.card in s.hands[seat]))
        while not s.can_go():
            s = s.apply(next(p for p in s.legal_moves() if isinstance(p, Play)))
        battery = s.battery
        s = s.apply(Go())
        rounds += 1
        assert s.battery == battery - 1
    assert rounds == BOXED.battery == 3
    assert s.outcome == "lost" and s.battery == 0
    assert s.returns() == {"p1": 0.0, "p2": 0.0, "p3": 0.0}


def test_objective_wins_immediately_in_the_middle_of_the_queue() -> None:
    scn = scenario(
        "...\n...\nQ..",
        tokens='[[tokens]]\nid = "d"\nkind = "dust"\nat = [0, 1]\n',
        objective='collect = ["dust"]',
    )
    s = deal_in_order(new_state(scn, 3), BASIC_ORDER)
    s = play_all(s, ["p1:F1", "p2:F2", "p3:RL", "p1:F1", "p2:F2", "go"])
    assert s.is_terminal() and s.outcome == "won"
    assert s.last_execution is not None and s.last_execution.resolved == 1
    assert s.returns() == {"p1": 1.0, "p2": 1.0, "p3": 1.0}
    assert s.section == "green" and s.battery == scn.battery  # won in the first round


def test_achievement_section_follows_the_battery() -> None:
    scn = builtin_scenario("dust-bunnies")
    assert [scn.section(b) for b in range(scn.battery, 0, -1)] == [
        "green",
        "green",
        "yellow",
        "yellow",
        "red",
        "red",
    ][: scn.battery]


def test_recorded_game_replays_exactly() -> None:
    rng = random.Random(7)
    s = new_state(builtin_scenario("fetch"), 2)
    log: list[QuirkyMove | ChanceEvent] = []
    while not s.is_terminal():
        mv: QuirkyMove | ChanceEvent = (
            s.sample_chance(rng) if s.is_chance_node() else rng.choice(list(s.legal_moves()))
        )
        log.append(mv)
        s = s.apply(mv)
    r = new_state(builtin_scenario("fetch"), 2)
    for step in log:
        r = r.apply(step)
    assert r.to_json() == s.to_json()


@pytest.mark.parametrize("sid", [s.id for s in builtin_scenarios()])
def test_random_playouts_keep_invariants(sid: str) -> None:
    scn = builtin_scenario(sid)
    rng = random.Random(sid)
    for players in sorted(scn.hands):
        s = new_state(scn, players)
        battery = s.battery
        steps = 0
        while not s.is_terminal():
            step: QuirkyMove | ChanceEvent = (
                s.sample_chance(rng) if s.is_chance_node() else rng.choice(list(s.legal_moves()))
            )
            s = s.apply(step)
            steps += 1
            cards = Counter(
                [c for h in s.hands for c in h]
                + list(s.deck)
                + [c for _, c in s.queue]
                + list(s.pool)
                + list(s.placed)
            )
            assert cards == Counter(scn.deck)
            assert all(len(h) <= scn.hands[players] for h in s.hands)
            assert s.battery <= battery
            battery = s.battery
            t = s.table
            assert scn.board.on_board(t.cell) and t.cell not in scn.board.obstacles
            for tok in t.tokens:
                assert (tok.at is None) == t.is_held(tok.id)
        assert s.round <= scn.battery
    final, _, _ = random_playout(new_state(scn, 3), rng)
    assert final.is_terminal()


def test_new_state_document_validates_and_round_trips() -> None:
    for scn in builtin_scenarios():
        s = shuffled(new_state(scn, 3), random.Random(1))
        doc = json.loads(json.dumps(s.to_json()))
        assert validate_state(doc) == []
        assert QuirkyState.from_json(doc).to_json() == doc


def codes(doc: dict[str, object]) -> set[str]:
    return {p.code for p in validate_state(doc)}


def test_validate_state_finds_set_up_mistakes() -> None:
    good = shuffled(new_state(builtin_scenario("kitchen-crumbs"), 3), random.Random(2)).to_json()
    bad = json.loads(json.dumps(good))
    bad["robot"] = {"at": [1, 0], "facing": "E"}
    assert codes(bad) == {"start"}
    bad = json.loads(json.dumps(good))
    bad["robot"] = {"at": [2, 2], "facing": "E"}
    assert "robot-on-obstacle" in codes(bad)
    bad = json.loads(json.dumps(good))
    bad["battery"] = 4
    assert codes(bad) == {"battery-start"}
    bad = json.loads(json.dumps(good))
    bad["tokens"] = [t for t in bad["tokens"] if t["id"] != "vase"]
    assert codes(bad) == {"missing-token"}
    bad = json.loads(json.dumps(good))
    bad["hands"][0].append("J3")
    problems = validate_state(bad)
    assert {p.code for p in problems} == {"deck", "hand-size"}
    assert any("extra 1x J3" in p.message for p in problems)
    bad = json.loads(json.dumps(good))
    bad["tokens"][1]["at"] = [5, 5]
    assert codes(bad) == {"token-start"}
    bad = json.loads(json.dumps(good))
    bad["players"] = 5
    assert "players" in codes(bad)
    bad = json.loads(json.dumps(good))
    bad["momentum"] = "N"
    assert "momentum" in codes(bad)


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"game": "ctrl"},
        {"game": "quirky", "scenario": "nope"},
        {
            "game": "quirky",
            "scenario": "fetch",
            "players": 3,
            "battery": 6,
            "robot": {"at": [0], "facing": "N"},
        },
    ],
)
def test_validate_state_raises_only_for_unreadable_documents(doc: object) -> None:
    with pytest.raises(InvalidStateError):
        validate_state(doc)


def test_a_pending_pick_up_choice_survives_the_state_document() -> None:
    scn = builtin_scenario("double-delivery")
    order = [str(c) for c in scn.deck_list()]
    for code in ("RR", "F3", "PK"):
        order.remove(code)
    for pos, code in ((0, "RR"), (3, "F3"), (6, "PK")):  # seat 1 receives deck positions 0, 3, 6, ...
        order.insert(pos, code)
    s = deal_in_order(new_state(scn, 3), order)
    # Penny: RR faces east, F3 to (3,0) where cushion, cup and book lie; PK needs the players' choice
    s = play_all(s, ["p1:RR", "p1:F3", "p1:PK", f"p2:{s.hands[1][0]}", f"p3:{s.hands[2][0]}", "go"])
    assert s.phase == "choose" and set(s.candidates) == {"cup", "book"}
    back = QuirkyState.from_json(json.loads(json.dumps(s.to_json())))
    assert back.phase == "choose" and back.candidates == s.candidates and back.exec_index == 2
    a = s.apply(parse_move("take:cup"))
    b = back.apply(parse_move("take:cup"))
    assert a.table.held[0] == "cup" and a.table.held == b.table.held
    assert a.to_json() == b.to_json()
