"""A trusted reading that could not make out for sure where a flag of a colour that played stands
(``SceneResult.uncertain_flags``, warned ``side-uncertain``) is recorded only once the player confirms
that flag (``boardside.ctrl_follow.flags_to_confirm``, ``judge(confirm=...)``; session 9: a held-out
followed game recorded a trusted reading with the mover's flag pole turned)."""

from __future__ import annotations

import random

from boardside.ctrl_follow import flags_to_confirm, judge, settle_flags
from engine.ctrl import FlagSpot, State, Turn, new_state
from engine.ctrl.record import random_turn


def _positions() -> tuple[State, State, Turn]:
    before = new_state(3)
    rng = random.Random(7)
    while True:  # a turn that places blocks and plugs the flag, with another legal spot for it
        turn, after = random_turn(before, rng)
        if turn.placement is not None and turn.flag is not None and len(after.flag_spots(before.to_move)) > 1:
            return before, after, turn


def test_only_a_trusted_reading_with_an_uncertain_flag_of_a_mover_is_confirmed() -> None:
    before, after, _turn = _positions()
    mover = before.to_move
    other = next(c for c in before.colors if c != mover)
    assert flags_to_confirm(True, [mover], before, after) == [mover]
    assert flags_to_confirm(True, [], before, after) == []
    assert flags_to_confirm(False, [mover], before, after) == []  # not trusted: the flag errors decide
    # a colour that did not play and whose flag stands where the record has it was settled before
    assert flags_to_confirm(True, [other], before, after) == []


def test_the_reading_is_recorded_once_the_flag_is_confirmed_or_accepted() -> None:
    before, after, turn = _positions()
    mover = before.to_move
    texts = [str(turn)]
    waiting = judge(before, texts, after, True, None, [], 1, confirm=[mover])
    assert not waiting.recordable and waiting.unconfirmed == (mover,)
    spot = after.flags.get(mover)
    read = settle_flags(after, {mover: spot}) if spot is not None else after
    confirmed = judge(before, texts, read, True, None, [mover], 1, confirm=[mover])
    assert confirmed.recordable and confirmed.unconfirmed == () and confirmed.turns == [turn]
    assert judge(before, texts, after, True, None, [], 1, accept=True, confirm=[mover]).recordable
    assert judge(before, texts, after, True, None, [], 1).recordable  # nothing to confirm: as before


def test_a_corrected_flag_is_what_gets_recorded() -> None:
    before, after, turn = _positions()
    mover = before.to_move
    spots = after.flag_spots(mover)
    other_spot = next((s for s in spots if s != after.flags.get(mover)), None)
    assert isinstance(other_spot, FlagSpot)
    read = settle_flags(after, {mover: other_spot})
    verdict = judge(before, [str(turn)], read, True, None, [mover], 1, confirm=[mover])
    assert verdict.recordable
    assert before.apply(verdict.turns[0]).flags[mover] == other_spot
